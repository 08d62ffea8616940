package history

// Single-node locks and elections in a replay: the directories of the
// systems' elections (Kafka's root, HDFS's elector directory, HBase's
// parent znode) are recognised by their node names, as [lockops.Decode] does, and
// handed the context their decoders read elsewhere (Kafka's broker
// registrations, HBase's backup masters, Solr's leader node); an ephemeral
// node that is the replay's root is a plain ephemeral lock. Their waiters
// that own no node (Kafka's brokers, HDFS's failover controllers, a plain
// lock's) wait with watches, which the log does not hold: the history of
// those is the history of their holders.

import (
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
)

// familyAt is the system election directory p is, from the names of the
// children the replay knows ("" when none), without listing them.
func (r *Replay) familyAt(p string) lockops.Kind {
	k := r.kids[p]
	if k == nil {
		return ""
	}
	has := func(name string) bool { _, ok := k[name]; return ok }
	switch {
	case has(lockops.HadoopLockNode) || has(lockops.HadoopBreadcrumbNode):
		return lockops.KindHadoopHA
	case has(lockops.KafkaControllerNode) && has(lockops.KafkaEpochNode):
		return lockops.KindKafkaController
	case has(lockops.HBaseMasterNode) && has(lockops.HBaseBackupsDir):
		return lockops.KindHBaseMaster
	}
	return ""
}

// electionOf is the election whose context directory dir is (Kafka's
// brokers/ids, HBase's backup-masters, the parent of Solr's overseer
// election holding its leader node), "" for any other directory.
func (r *Replay) electionOf(dir string) string {
	parent := path.Dir(dir)
	switch path.Base(dir) {
	case "ids":
		if root := path.Dir(parent); path.Base(parent) == "brokers" && r.familyAt(root) == lockops.KindKafkaController {
			return root
		}
	case lockops.HBaseBackupsDir:
		if r.familyAt(parent) == lockops.KindHBaseMaster {
			return parent
		}
	case "overseer_elect":
		if e := lockops.JoinPath(dir, lockops.SolrElectionDir); r.kids[e] != nil || r.locks[e] != nil {
			return e
		}
	}
	return ""
}

// singleNodeDir is p as [lockops.Decode] reads a system's election or a plain
// ephemeral lock, with the context its decoder needs; ok is false when p
// is neither.
func (r *Replay) singleNodeDir(p string) (lockops.Dir, bool) {
	k := r.familyAt(p)
	if l := r.locks[p]; k == "" && l != nil && l.kind.SingleNode() && l.kind != lockops.KindEphemeralLock {
		k = l.kind // its leader node gone: still the election, with no leader now
	}
	switch k {
	case lockops.KindKafkaController:
		d := r.plainDir(p)
		d.Context = r.plainDir(lockops.KafkaBrokersOf(p)).Children
		return d, true
	case lockops.KindHBaseMaster:
		d := r.plainDir(p)
		d.Context = r.plainDir(lockops.JoinPath(p, lockops.HBaseBackupsDir)).Children
		return d, true
	case lockops.KindHadoopHA:
		return r.plainDir(p), true
	}
	if p != r.root {
		return lockops.Dir{}, false
	}
	n := r.nodes[p]
	if n == nil || n.Owner == 0 || len(r.kids[p]) > 0 || lockops.LibraryOf(n.Name) != nil {
		return lockops.Dir{}, false
	}
	return lockops.EphemeralDir(p, zk.Stat{EphemeralOwner: n.Owner, Czxid: n.Czxid, Ctime: n.Ctime, Version: n.Version}, n.Data), true
}

// decodeOptions are the options the lock at p is decoded with: a
// single-node lock stays of its kind when its leader node is gone (the
// names alone no longer say it is one).
func (r *Replay) decodeOptions(p string) lockops.DecodeOptions {
	o := lockops.DecodeOptions{MaxLeases: r.o.MaxLeases}
	if l := r.locks[p]; l != nil && l.kind.SingleNode() {
		o.Kind = l.kind
	}
	return o
}

// touchRoot notes a change of the root node itself: when it is an
// ephemeral node it is a plain ephemeral lock.
func (r *Replay) touchRoot(p string) {
	if p == r.root && p != "/" {
		r.dirty[p] = true
	}
}
