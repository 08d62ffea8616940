package history_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestHistoryEnsembleExpiry: on a 3-member ensemble, a holder whose
// connection just stops (its session expires: the leader closes it) and
// one that closes its session itself, both connected to a follower; the
// history read from the follower's own log tells the expiry from the
// client's close.
func TestHistoryEnsembleExpiry(t *testing.T) {
	cl := zktest.StartEnsemble(t, 3, zktest.Options{MaxSessionTimeout: 4000})
	leader := cl.Leader()
	var follower *zktest.Server
	for _, s := range cl.Servers {
		if s != leader {
			follower = s
		}
	}
	if leader == nil || follower == nil {
		t.Fatal("no leader and follower")
	}
	c := cmdtest.Dial(t, follower.ClientAddr)
	lock := "/ens/deploy"
	zktest.MakePath(t, c, lock)
	name := lock + "/0123456789abcdef0123456789abcdef__lock__"
	crashed, err := zktest.DialSession(follower.ClientAddr, 0, nil, 4*time.Second) // sends no pings
	if err != nil {
		t.Fatal(err)
	}
	if err := crashed.Create(name, []byte("crashed"), 3); err != nil { // ephemeral, sequential
		t.Fatal(err)
	}
	closed, _, err := zk.Connect([]string{follower.ClientAddr}, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := closed.Create(name, []byte("closed"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	crashed.Abandon() // no close: the leader expires it after 4 s
	awaitAtMost(t, c, lock, 1)
	closed.Close()
	awaitAtMost(t, c, lock, 0)
	data := copyDataDir(t, filepath.Join(follower.Dir, "data"))
	doc, out := historyJSON(t, "/ens", "--txnlog", data)
	if len(doc.Locks) != 1 || len(doc.Locks[0].Tenures) != 2 {
		t.Fatalf("history from the follower's log:\n%s", out)
	}
	if a, b := doc.Locks[0].Tenures[0], doc.Locks[0].Tenures[1]; a.Data != "crashed" || a.End != "session-expired" || b.Data != "closed" || b.End != "session-closed" {
		t.Fatalf("ends: %s %s, %s %s\n%s", a.Data, a.End, b.Data, b.End, out)
	}
}

// awaitAtMost waits until dir has at most n children.
func awaitAtMost(t *testing.T, c *zk.Conn, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		kids, _, ch, err := c.ChildrenW(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(kids) <= n {
			return
		}
		select {
		case <-ch:
		case <-time.After(time.Until(deadline)):
			t.Fatalf("%s still has %d children, want at most %d", dir, len(kids), n)
		}
	}
}
