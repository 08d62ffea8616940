// Package herd is what `zkscope demo --herd` runs: two locks with the same
// number of contenders taking turns on the demo's local server, one taken
// the naive way (a plain ephemeral lock node: every waiter sets an exists
// watch on it, so every release wakes them all, and each re-reads the
// directory and tries again) and one with the predecessor chain (Curator's
// mutex format: each waiter watches only the node just ahead of it). Every
// release is measured twice, by the contenders' own counters and by the
// servers' watch lists (wchc) sampled just before it, so the herd effect is
// shown in numbers from two independent places.
package herd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// DefaultContenders is how many contenders each lock has unless told.
const DefaultContenders = 10

// MaxContenders bounds --contenders: each contender is a session of its own.
const MaxContenders = 200

// DefaultRoot is where the two locks live on the demo's server.
const DefaultRoot = "/herd"

// Style is one of the two ways of taking the lock.
type Style string

// The two locks.
const (
	// Naive: a plain ephemeral lock node; every waiter watches it.
	Naive Style = "naive"
	// Chain: Curator's mutex; each waiter watches its predecessor.
	Chain Style = "chain"
)

// Styles are the two locks in the order they are shown.
var Styles = []Style{Naive, Chain}

// Recipe says how a lock of style s is taken, in a few words.
func (s Style) Recipe() string {
	if s == Naive {
		return "plain ephemeral node; every waiter watches it"
	}
	return "Curator mutex; each waiter watches its predecessor"
}

// settleTimeout bounds the wait for a release's effects (generous: a
// loaded machine).
const settleTimeout = 30 * time.Second

// Options tune a [Herd].
type Options struct {
	// Servers are the client addresses of the ZooKeeper to run on.
	Servers []string
	// Root is where the locks live (default [DefaultRoot]): Root/naive
	// holds the naive lock's node (Root/naive/lock), Root/chain the chain's.
	Root string
	// Contenders per lock (default [DefaultContenders], 2 to [MaxContenders]).
	Contenders int
}

// Counts are what one release, or a lock's releases together, cost.
type Counts struct {
	// Notifications is the watch notifications the contenders received
	// (their own counters).
	Notifications int `json:"notifications"`
	// ServerNotifications is how many sessions the servers listed watching
	// the released node in the wchc sample taken just before the release:
	// the notifications the servers had to send.
	ServerNotifications int `json:"server_notifications"`
	// Requests is what the woken contenders sent (re-reads, create
	// attempts, new watches) until the next holder held and every other
	// waiter waited again (their own counters).
	Requests int `json:"requests"`
	// Reads are the reads among Requests (the rest are create attempts).
	Reads int `json:"reads"`
	// Handover is the time from the release until the next holder held.
	Handover time.Duration `json:"handover_ns"`
}

func (c *Counts) add(o Counts) {
	c.Notifications += o.Notifications
	c.ServerNotifications += o.ServerNotifications
	c.Requests += o.Requests
	c.Reads += o.Reads
	c.Handover += o.Handover
}

// Release is one release of one lock and what followed.
type Release struct {
	Lock Style `json:"lock"`
	// N counts the lock's releases from 1.
	N int `json:"n"`
	// Released is the node its holder deleted; Holder the next holder's.
	Released string `json:"released"`
	Holder   string `json:"holder"`
	// WatchesBefore is the contenders' watches on the lock's nodes in the
	// servers' wchc sample before the release, on WatchedNodes nodes: the naive
	// lock's all on one, the chain's one on each but the last waiter's.
	WatchesBefore int `json:"watches_before"`
	WatchedNodes  int `json:"watched_nodes"`
	// OtherWatchers are sessions other than the contenders' that watched
	// the released node (someone watching the demo): not counted above.
	OtherWatchers int `json:"other_watchers,omitempty"`
	// ReleasedBy and HeldBy are the sessions of the two ("0x…").
	ReleasedBy string `json:"released_by"`
	HeldBy     string `json:"held_by"`
	Counts
}

// Herd is the two locks with their contenders. Its methods are called
// from one goroutine at a time.
type Herd struct {
	o     Options
	mu    sync.Mutex
	locks map[Style]*lock
}

// Start connects o.Contenders contenders to each lock (a session each),
// lets them queue one after the other (the first of each holds) and
// returns when all wait. [Herd.Close] ends every session.
func Start(ctx context.Context, o Options) (*Herd, error) {
	if o.Root == "" {
		o.Root = DefaultRoot
	}
	if o.Contenders == 0 {
		o.Contenders = DefaultContenders
	}
	if o.Contenders < 2 || o.Contenders > MaxContenders {
		return nil, fmt.Errorf("herd: %d contenders: give 2 to %d", o.Contenders, MaxContenders)
	}
	h := &Herd{o: o, locks: map[Style]*lock{}}
	for _, s := range Styles {
		l, err := startLock(ctx, o, s)
		if l != nil {
			h.locks[s] = l
		}
		if err != nil {
			h.Close()
			return nil, err
		}
	}
	return h, nil
}

// Path is the lock's path as zkscope shows it: the naive lock's node, the
// chain's directory.
func (h *Herd) Path(s Style) string { return h.locks[s].lockPath() }

// Contenders is how many contenders each lock has.
func (h *Herd) Contenders() int { return h.o.Contenders }

// Release makes the holder of lock s release it and waits until the next
// holder holds, the other waiters wait again and the released contender
// has queued again; it returns what that release cost.
func (h *Herd) Release(ctx context.Context, s Style) (Release, error) {
	l := h.locks[s]
	r, err := l.release(ctx, h.o.Servers)
	if err != nil {
		return r, fmt.Errorf("herd: %s lock: %w", s, err)
	}
	h.mu.Lock()
	l.total.add(r.Counts)
	l.releases++
	l.last = r
	h.mu.Unlock()
	return r, nil
}

// Round releases each lock once, the naive one first.
func (h *Herd) Round(ctx context.Context) ([]Release, error) {
	var out []Release
	for _, s := range Styles {
		r, err := h.Release(ctx, s)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Totals are lock s's releases so far and what they cost together.
func (h *Herd) Totals(s Style) (releases int, total Counts) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.locks[s]
	return l.releases, l.total
}

// Last is lock s's last release (zero before the first).
func (h *Herd) Last(s Style) Release {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.locks[s].last
}

// Close ends every contender's session.
func (h *Herd) Close() {
	for _, l := range h.locks {
		l.close()
	}
}

// errEnded is a contender's report that its context ended.
var errEnded = errors.New("the demo ended")

// join is root and name joined.
func join(root, name string) string { return zkview.Join(root, name) }

// curatorPrefix is a new Curator mutex node's name without its sequence.
func curatorPrefix() string {
	f := lockops.Curator.Format
	return f.NewPrefix(f.Marker(lockops.ModeExclusive))
}
