package lockops

// Single-node locks and elections: what the families share (kafka.go,
// hadoop.go, hbase.go, solr.go, ephemeral.go). Their leader is one node
// whose existence means "held"; their candidates either own a node of
// their own (HBase's backup masters, Solr's election queue) or none at
// all and wait with an exists watch on the leader node (Kafka's brokers,
// HDFS's failover controllers, a hand-written ephemeral lock): those are
// seen only in the servers' watch lists (diagnose.ApplyEnsemble).

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// ModeLeader is the mode of a system election's candidates (the leader
// and those waiting to become it).
const ModeLeader Mode = "leader"

// Field is one decoded value of a node's data or of an election's context
// (`"brokerid": 1`). Num says the value is a JSON number.
type Field struct {
	Key, Value string
	Num        bool
}

// Payload is a node's data decoded in its system's format: the fields, or
// why the data did not parse (Err; the raw data is shown instead).
type Payload struct {
	Fields []Field
	Err    string
}

// String is the payload for people: "brokerid=1 host=kafka1:9092", or the
// reason it did not parse.
func (p *Payload) String() string {
	if p == nil {
		return ""
	}
	if p.Err != "" {
		return "unparsed: " + p.Err
	}
	parts := make([]string, len(p.Fields))
	for i, f := range p.Fields {
		parts[i] = f.Key + "=" + f.Value
	}
	return strings.Join(parts, " ")
}

// Get is the value of key, "" when absent.
func (p *Payload) Get(key string) string {
	if p == nil {
		return ""
	}
	for _, f := range p.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}

func text(k, v string) Field { return Field{Key: k, Value: v} }
func num(k string, v int64) Field {
	return Field{Key: k, Value: strconv.FormatInt(v, 10), Num: true}
}

// SingleNode reports whether k is a lock whose holder is one node of a
// fixed name (kafka.controller, hadoop.ha, hbase.master,
// zookeeper.ephemeral-lock): deleting it starts a new election.
func (k Kind) SingleNode() bool {
	switch k {
	case KindKafkaController, KindHadoopHA, KindHBaseMaster, KindEphemeralLock:
		return true
	}
	return false
}

// SystemElection reports whether k is the leader election of a system
// (Kafka, HDFS, HBase, Solr): evict.Evict asks for evict.Options.ForceLeader
// before deleting its leader.
func (k Kind) SystemElection() bool {
	switch k {
	case KindKafkaController, KindHadoopHA, KindHBaseMaster, KindSolrOverseer:
		return true
	}
	return false
}

// WatcherWaiters reports whether the candidates of k wait without a node
// of their own (so the servers' watch lists are the only place they show).
func (k Kind) WatcherWaiters() bool {
	return k == KindKafkaController || k == KindHadoopHA || k == KindEphemeralLock
}

// FamilyOf is the system election a directory's children make, "" when
// none: HDFS's lock or breadcrumb, Kafka's controller epoch with the
// controller or the brokers, HBase's backup masters (with its master).
func FamilyOf(names []string) Kind {
	return familyOfEach(len(names), func(i int) string { return names[i] })
}

// FamilyOfChildren is [FamilyOf] over a directory as read.
func FamilyOfChildren(children []Child) Kind {
	return familyOfEach(len(children), func(i int) string { return children[i].Name })
}

// familyOfEach is [FamilyOf] over n names, in one pass without a copy
// (every directory of a scan is asked). Between two elections the leader
// node is missing: a Kafka root still has its controller_epoch next to
// its brokers, HBase's root its backup-masters.
func familyOfEach(n int, name func(i int) string) Kind {
	var controller, epoch, brokers, backups bool
	for i := 0; i < n; i++ {
		switch name(i) {
		case HadoopLockNode, HadoopBreadcrumbNode:
			return KindHadoopHA
		case KafkaControllerNode:
			controller = true
		case KafkaEpochNode:
			epoch = true
		case "brokers":
			brokers = true
		case HBaseBackupsDir:
			backups = true
		}
	}
	switch {
	case epoch && (controller || brokers):
		return KindKafkaController
	case backups:
		return KindHBaseMaster
	}
	return ""
}

// childNamed is the child called name, nil when there is none.
func childNamed(children []Child, name string) *Child {
	for i := range children {
		if children[i].Name == name {
			return &children[i]
		}
	}
	return nil
}

// leaderParticipant is the holder of a single-node election: its node c
// in dir, with its data decoded by decode.
func leaderParticipant(dir string, c *Child, decode func([]byte) *Payload) Participant {
	p := participant(dir, c, ModeLeader, "")
	p.State = StateHolding
	p.Payload = decode(c.Data)
	return p
}

// noLeader is the problem of an election with no leader node now.
func noLeader(lockPath, what, next string) Problem {
	return Problem{Kind: ProblemNoLeader, Node: lockPath, Detail: "no " + what + " now: " + next}
}

// ApplyWatchers adds to a single-node lock whose candidates own no node
// (Kafka, HDFS, a plain ephemeral lock) one waiter for each session the
// servers list watching the leader node (watchers), the leader's own
// session aside, in session order, each named by its client (clientOf)
// and (Kafka) its broker. With no leader now (between two elections) the
// waiters are those watching the missing node with exists, as the
// candidates do while they race to create it. Waiters added by an earlier
// call are replaced.
func ApplyWatchers(q *Queue, watchers func(node string) []int64, clientOf func(session int64) (addr string, ok bool)) {
	if !q.Kind.WatcherWaiters() {
		return
	}
	q.Participants = slices.DeleteFunc(q.Participants, func(p Participant) bool { return p.WatcherOnly })
	node, holder := watchedLeaderNode(*q)
	if node == "" {
		return
	}
	sessions := slices.Clone(watchers(node))
	slices.Sort(sessions)
	observed := true
	for _, s := range slices.Compact(sessions) {
		if s == holder {
			continue
		}
		w := Participant{Node: node, Name: path.Base(node), Mode: watcherMode(q.Kind), State: StateWaiting,
			Position: len(q.Participants), Session: s, Ephemeral: true, WatcherOnly: true,
			Watches: node, WatchKind: WatchExists, WatchObserved: &observed, Payload: q.labels[s]}
		if addr, ok := clientOf(s); ok {
			w.Client = addr
		}
		q.Participants = append(q.Participants, w)
	}
}

// watchedLeaderNode is the node the candidates of a single-node lock q
// watch, with its holder's session: the holder's node, or with no holder
// now the path the winner will create (Kafka's controller, HDFS's lock,
// the plain ephemeral lock's own path; holder 0). "" when q has none.
func watchedLeaderNode(q Queue) (node string, holder int64) {
	if len(q.Participants) > 0 && q.Participants[0].State == StateHolding && !q.Participants[0].WatcherOnly {
		return q.Participants[0].Node, q.Participants[0].Session
	}
	switch q.Kind {
	case KindKafkaController:
		return JoinPath(q.Path, KafkaControllerNode), 0
	case KindHadoopHA:
		return JoinPath(q.Path, HadoopLockNode), 0
	case KindEphemeralLock:
		return q.Path, 0
	}
	return "", 0
}

// watcherMode is the mode of a kind's waiters that own no node.
func watcherMode(k Kind) Mode {
	if k == KindEphemeralLock {
		return ModeExclusive
	}
	return ModeLeader
}

// LeaderWord is what a kind's holder is called.
func LeaderWord(k Kind) string {
	switch k {
	case KindKafkaController:
		return "Kafka controller"
	case KindHadoopHA:
		return "active NameNode's failover controller"
	case KindHBaseMaster:
		return "active HBase master"
	case KindSolrOverseer:
		return "Solr overseer"
	}
	return "lock holder"
}

// NextElection says what the system does once the leader node of a q's
// kind is deleted: the consequence evict.PreviewEvict spells out.
func NextElection(k Kind) string {
	switch k {
	case KindKafkaController:
		return "Kafka elects a new controller: every broker races to create /controller, the winner bumps /controller_epoch and reloads all partition state (a controller failover; the old controller stops at its next epoch check)"
	case KindHadoopHA:
		return "the standby's failover controller wins the lock, FENCES the NameNode named in ActiveBreadCrumb (ssh/shell fencing) and makes its own NameNode active; the old active is not told by ZooKeeper"
	case KindHBaseMaster:
		return "a backup master creates /hbase/master and becomes active; the old master aborts when it notices it lost the node"
	case KindSolrOverseer:
		return "the next node in the overseer election queue becomes overseer and rewrites the leader node"
	}
	return "every session watching the node wakes at once and races to create it"
}

// System is the name of the system whose leader election k is ("Kafka",
// "HDFS", "HBase", "Solr"), "" for other kinds.
func (k Kind) System() string {
	switch k {
	case KindKafkaController:
		return "Kafka"
	case KindHadoopHA:
		return "HDFS"
	case KindHBaseMaster:
		return "HBase"
	case KindSolrOverseer:
		return "Solr"
	}
	return ""
}
