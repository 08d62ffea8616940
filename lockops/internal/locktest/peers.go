package locktest

import (
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// Peer is one real-library contender (its own process and session).
type Peer struct {
	procs *zktest.Peers
}

// StartPeer starts a real Curator ("mutex", "read", "write") or kazoo
// ("lock", "read", "write") contender on lockPath and waits until it is
// about to queue.
func StartPeer(t *testing.T, lib, servers, lockPath, kind string) *Peer {
	t.Helper()
	var procs *zktest.Peers
	if lib == "curator" {
		procs = zktest.StartCurator(t, servers)
	} else {
		procs = zktest.StartKazoo(t, servers)
	}
	procs.Acquire(t, "p", kind, lockPath)
	return &Peer{procs}
}

// Expect waits for the peer to report want ("acquired", "released").
func (p *Peer) Expect(t *testing.T, want string) {
	t.Helper()
	p.procs.Await(t, "p", want)
}

// AcquiredYet reports whether the peer has acquired so far.
func (p *Peer) AcquiredYet() bool { return p.procs.Has("p", "acquired") }

// Release makes the peer let go of its lock.
func (p *Peer) Release(t *testing.T) {
	t.Helper()
	p.procs.Release(t, "p")
}

// WatchedBy waits until some session holds a data watch on node according
// to the server (4lw wchp): the real client is waiting on it.
func WatchedBy(t *testing.T, addr, node string) {
	t.Helper()
	WaitFor(t, "a watch on "+node, 90*time.Second, func() bool {
		out, err := zktest.FourLetterWord(addr, "wchp", 2*time.Second)
		if err != nil {
			return false
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.TrimSpace(l) == node {
				return true
			}
		}
		return false
	})
}

// NodeOfPeer waits for a node in lockPath other than exclude (the
// peer's) and returns its path.
func NodeOfPeer(t *testing.T, c *zkview.Client, lockPath, exclude string) string {
	t.Helper()
	var found string
	WaitFor(t, "the peer's node in "+lockPath, 90*time.Second, func() bool {
		for _, k := range Children(t, c, lockPath) {
			if n := zkview.Join(lockPath, k); n != exclude {
				found = n
				return true
			}
		}
		return false
	})
	return found
}
