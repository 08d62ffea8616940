package cluster_test

import (
	"strings"
	"testing"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestSessionsEphemeralWait: a real kazoo client waiting on a plain
// ephemeral lock (create, or watch the node with exists) owns no node, yet
// `sessions` shows its wait on that lock, by the node it watches, next to
// the holder's hold.
func TestSessionsEphemeralWait(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	lock := base + "/leader"
	kz := zktest.StartKazoo(t, srv.ConnectString())
	kz.Acquire(t, "a", "ephemeral", lock)
	kz.Await(t, "a", "acquired")
	kz.Acquire(t, "b", "ephemeral", lock)
	kz.Await(t, "b", "waiting")

	doc := cmdtest.SessionsUntil(t, srv.ConnectString(), func(d cmdtest.SessionsDoc) bool {
		return len(d.Sessions) == 2 && len(d.Sessions[0].WaitsOn)+len(d.Sessions[1].WaitsOn) == 1
	}, base, "--locks")
	var held, waited int
	for _, s := range doc.Sessions {
		for _, l := range s.Holds {
			held++
			if l.Lock != lock || l.Node != lock || l.Ctime == nil || l.OwnNode != nil {
				t.Errorf("session %s holds %+v", s.Session, l)
			}
		}
		for _, l := range s.WaitsOn {
			waited++
			if l.Lock != lock || l.Node != lock || l.Recipe != "zookeeper.ephemeral-lock" || l.OwnNode == nil || *l.OwnNode || l.Ctime != nil || l.Seconds != nil {
				t.Errorf("session %s waits on %+v", s.Session, l)
			}
		}
	}
	if held != 1 || waited != 1 {
		t.Fatalf("held %d waited %d: %+v", held, waited, doc)
	}
	out, err := cmdtest.Run(t, "-s", srv.ConnectString(), "sessions", base, "--locks")
	if err != nil || !strings.Contains(out, "holds "+lock) || !strings.Contains(out, "waits on "+lock+" (exclusive) watching "+lock) {
		t.Errorf("table: %v\n%s", err, out)
	}

	// Once b holds, nobody watches the node: below base it is no longer
	// told from any other ephemeral node, but asked for by its path it is.
	kz.Release(t, "a")
	kz.Await(t, "b", "acquired")
	cmdtest.SessionsUntil(t, srv.ConnectString(), func(d cmdtest.SessionsDoc) bool {
		return len(d.Sessions) == 1 && len(d.Sessions[0].Holds) == 1 && len(d.Sessions[0].WaitsOn) == 0
	}, lock, "--locks")
}
