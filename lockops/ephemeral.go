package lockops

// The plain ephemeral lock (zookeeper.ephemeral-lock): one EPHEMERAL node
// whose existence means "held", as hand-written code makes it: create
// the node; on NodeExists watch it with exists and try again when it is
// deleted. Every waiter watches the same node, so all wake at once (a
// herd). The waiters own no node: the servers' watch lists (wchp) are the
// only place they show. Any ephemeral node with no known recipe that
// sessions watch is read as one (scan.FindEphemeralLocks).

import (
	"path"

	"github.com/go-zookeeper/zk"
)

// Ephemeral is the plain ephemeral lock's format; zkscope takes locks in
// it (`zkscope lock PATH --recipe ephemeral`).
var Ephemeral = &Library{
	Name: "ephemeral", Title: "plain ephemeral",
	Format: &TakeFormat{Kinds: map[Mode]Kind{ModeExclusive: KindEphemeralLock}},
}

// decodeEphemeral reads d, the lock node itself (its own stat and data):
// its owner holds. The waiters come from the servers (diagnose.ApplyEnsemble).
func decodeEphemeral(d Dir) Queue {
	if d.Stat.Czxid == 0 {
		return Queue{} // gone
	}
	c := Child{Name: path.Base(d.Path), Path: d.Path, Data: d.Data, Owner: d.Stat.EphemeralOwner,
		Ctime: d.Stat.Ctime, Czxid: d.Stat.Czxid, Version: d.Stat.Version}
	p := participant(path.Dir(d.Path), &c, ModeExclusive, "")
	p.State = StateHolding
	return Queue{Participants: []Participant{p}}
}

// EphemeralDir is the lock node at p read for [Decode] as a plain
// ephemeral lock (Kind [KindEphemeralLock]).
func EphemeralDir(p string, st zk.Stat, data []byte) Dir {
	return Dir{Path: p, Stat: st, Data: data}
}
