package take

// A lock zkscope holds: its state and what it publishes (changes,
// deadlines, loss, revocation). Two goroutines keep it current: the node
// watcher (held_watch.go) and the monitor, the one that changes its
// state (held_monitor.go); after a loss, lost.go.

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/zkview"
)

// Held is a lock zkscope holds. It watches the connection and its own node
// until released. All methods are safe for concurrent use.
//
// While held it keeps track of the last contact: the send time of the
// latest request of our session that the servers answered ([zkview.Client.Contact];
// a small heartbeat on our node keeps it fresh). The servers cannot expire
// the session before last contact + session timeout, so the lock is surely
// ours until [Held.Deadline] (that, less a margin for timer lateness and
// kill delivery). Without contact for a short while the lock goes
// SUSPENDED; at the deadline it goes LOST, whatever go-zookeeper thinks of
// the connection.
//
// What was declared lost stays lost: if the same session comes back later
// (a server restarted on its data keeps sessions alive), our node is deleted
// at once and the last change says so (NodeDeleted). Release after LOST does
// not stop that.
type Held struct {
	Path     string // lock directory
	Node     string // our node (full path, caller's view)
	Recipe   string // locks-json recipe name
	Mode     lockops.Mode
	Session  int64 // the session that owns Node
	Czxid    int64 // Node's creation zxid (tells a re-created node apart; the fencing token)
	Acquired time.Time

	c *zkview.Client

	mu          sync.Mutex
	state       hold.State
	reason      string
	version     int32
	releasing   bool
	revoke      bool
	unaudited   bool
	lastContact time.Time     // send time of our latest answered request
	timeout     time.Duration // negotiated session timeout
	cleanup     bool          // LOST by silence: delete our node if the session comes back
	hold.Subscribers
	lost    chan struct{}
	revoked chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

func newHeld(c *zkview.Client, lockPath, node string, k lockops.Kind, mode lockops.Mode, st zk.Stat) *Held {
	h := &Held{
		Path: lockPath, Node: node, Recipe: string(k), Mode: mode,
		Session: st.EphemeralOwner, Czxid: st.Czxid, Acquired: time.Now(),
		c: c, version: st.Version,
		lost: make(chan struct{}), revoked: make(chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	// The reply that showed the lock free is on record: its request's send
	// time is the first contact.
	h.lastContact, h.timeout = h.Acquired, c.NegotiatedTimeout()
	if sent, t, ok := c.Contact(h.Session); ok {
		h.lastContact = sent
		if t > 0 {
			h.timeout = t
		}
	}
	sub, unsub := c.Subscribe()
	go h.monitor(sub, unsub)
	return h
}

// heartbeatEvery is how often a held lock asks the servers about its node.
func heartbeatEvery(timeout time.Duration) time.Duration {
	return min(max(timeout/10, 20*time.Millisecond), time.Second)
}

// suspendAfter is the silence after which a held lock goes SUSPENDED
// (go-zookeeper itself notices only after 2/3 of the session timeout).
func suspendAfter(timeout time.Duration) time.Duration { return timeout / 4 }

// State is the lock's current state.
func (h *Held) State() hold.State {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state
}

// Reason explains the current state ("" while held).
func (h *Held) Reason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason
}

// Deadline is the moment the lock must be treated as lost unless the
// servers answer again: the last contact plus the negotiated session
// timeout, less a margin (min(timeout/10, 500ms)). Before it the servers
// cannot have expired our session. It moves on with every answer while the
// lock is held or suspended.
func (h *Held) Deadline() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.deadlineLocked()
}

func (h *Held) deadlineLocked() time.Time {
	return h.lastContact.Add(h.timeout - hold.LossMargin(h.timeout))
}

// LastContact is the send time of the latest request of our session the
// servers answered.
func (h *Held) LastContact() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastContact
}

// Timeout is the session timeout the servers negotiated for our session.
func (h *Held) Timeout() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.timeout
}

// Changes returns a new channel of state changes (buffered; when a reader
// lags the oldest undelivered change is dropped, never the newest). It is
// closed after StateReleased, and after StateLost once nothing is left to
// do (after the NodeDeleted change when our node had to be deleted).
func (h *Held) Changes() <-chan hold.Change {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.SubscribeLocked(h.state, h.reason, h.cleanup)
}

// Deadlines returns a new channel that holds the latest [Held.Deadline]
// (the current one first; a reader only ever misses stale values). It is
// closed when the lock is lost or released: from then on nothing extends it.
func (h *Held) Deadlines() <-chan time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.DeadlinesLocked(h.state, h.deadlineLocked())
}

// LostCh is closed when the lock is lost (not when it is released).
func (h *Held) LostCh() <-chan struct{} { return h.lost }

// RevokeCh is closed when someone asks for the lock with a Curator
// revocation ("__REVOKE__" written to our node).
func (h *Held) RevokeCh() <-chan struct{} { return h.revoked }

// setStateLocked records a change and tells subscribers. Caller holds h.mu.
func (h *Held) setStateLocked(s hold.State, reason string, revoke bool) {
	if h.state == hold.StateLost || h.state == hold.StateReleased {
		return
	}
	if s == h.state && !revoke {
		return
	}
	h.state, h.reason = s, reason
	if s == hold.StateHeld {
		h.reason = ""
	}
	ev := hold.Change{State: s, Reason: h.reason, RevokeRequested: revoke, Time: time.Now()}
	if s == hold.StateHeld || s == hold.StateSuspended {
		ev.Deadline = h.deadlineLocked()
	}
	ev.WatchingForReturn = s == hold.StateLost && h.cleanup
	h.NotifyLocked(ev)
	if s == hold.StateLost || s == hold.StateReleased {
		if s == hold.StateLost {
			close(h.lost)
		}
		h.CloseDeadlinesLocked()
		if !h.cleanup {
			h.CloseSubsLocked()
		}
	}
}

// setState is setStateLocked taking h.mu.
func (h *Held) setState(s hold.State, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.setStateLocked(s, reason, false)
}

// closeStop closes h.stop once.
func (h *Held) closeStop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
}

// String summarises the lock for display:
// "curator.mutex /app/lock/_c_…-lock-0000000003 (session 0x…)".
func (h *Held) String() string {
	return fmt.Sprintf("%s %s (session %s)", h.Recipe, h.Node, lockops.FormatSession(h.Session))
}

// LockNode, ReleaseWithin and ServerName make a [*Held] a heldLock for
// `zkscope lock`.
func (h *Held) LockNode() string             { return h.Node }
func (h *Held) ReleaseWithin() time.Duration { return sessionTimeout(h.c) }
func (h *Held) ServerName() string           { return "ZooKeeper" }

// DeadlineRule says what [Held.Deadline] is, naming the flag that moves it.
func (h *Held) DeadlineRule() string {
	t := h.Timeout()
	return fmt.Sprintf("the servers' last answer + the session timeout %s (--session-timeout) - %s", t, hold.LossMargin(t))
}

// FenceEnv is what CMD learns about the lock it runs under: enough to fence
// its writes (storage that remembers the highest ZKSCOPE_LOCK_FENCE it saw
// can refuse a write carrying a lower one: an older holder's).
func (h *Held) FenceEnv() []string {
	return []string{
		"ZKSCOPE_LOCK_PATH=" + h.Path,
		"ZKSCOPE_LOCK_NODE=" + h.Node,
		"ZKSCOPE_LOCK_SESSION=" + lockops.FormatSession(h.Session),
		"ZKSCOPE_LOCK_FENCE=" + strconv.FormatInt(h.Czxid, 10),
	}
}
