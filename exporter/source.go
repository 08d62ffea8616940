package exporter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/zkview"
)

// Source keeps one cluster's model up to date until ctx ends. A source
// of ZooKeeper's persistent recursive watches is one more implementation.
type Source interface {
	// Mode is how it follows the cluster.
	Mode() Mode
	// Run reads the cluster's roots into c, as they change, until ctx
	// ends.
	Run(ctx context.Context, c *Cluster)
}

// ZooKeeper follows the locks below each root with lockops/follow's
// Follow (one persistent recursive watch on ZooKeeper 3.6+, else children
// watches on the lock directories and a full scan every
// Options.Interval), applying only the locks each snapshot says changed. Dial is called until it connects (a read error each
// failure, tried again an interval later). While the connection is lost
// the model is dropped (a read error each interval); once it is back,
// each root is scanned afresh.
type ZooKeeper struct {
	Dial    func(context.Context) (*zkview.Client, error)
	Options follow.Options
}

// FollowBatch is how long a ZooKeeper source gathers the changes after a
// quiet moment before one snapshot reads them all (its
// follow.Options.Batch, unless set): a change reaches /metrics about this
// much later, and a busy tree costs a few reads a second, not one a
// change.
const FollowBatch = 250 * time.Millisecond

// FollowPause is how long the persistent watches' reader of a ZooKeeper
// source's client waits for more events after waking for one
// (zkview.Config.FollowPause): at 200 changes a second, about 10 wakeups
// instead of 200, for a change in /metrics 50 ms later at most, within
// the FollowBatch it waits anyway.
const FollowPause = 50 * time.Millisecond

// VerifyEvery is how often at most a ZooKeeper source asks the servers
// who is connected and watching what (its follow.Options.VerifyEvery,
// unless set): each answer judges every lock again (dead owners, missing
// watches), which on thousands of locks is most of a follow's work; a
// scrape every 15 s or an alert's `for:` needs it no sooner.
const VerifyEvery = 10 * time.Second

// Mode is [ModeUnknown]: each root's follow says how it follows (its
// snapshots' Mode: persistent watches, or children watches where the
// server has none or the firehose guard dropped them).
func (z ZooKeeper) Mode() Mode { return ModeUnknown }

// Run follows c's roots until ctx ends.
func (z ZooKeeper) Run(ctx context.Context, c *Cluster) {
	interval := max(z.Options.Interval, follow.MinInterval)
	z.Options.Batch = cmp.Or(z.Options.Batch, FollowBatch)
	z.Options.KindsOnly = true // a metric counts problems by kind: their sentences are not kept
	z.Options.VerifyEvery = cmp.Or(z.Options.VerifyEvery, VerifyEvery)
	client := z.dial(ctx, c, interval)
	if client == nil {
		return
	}
	defer client.Close()
	events, stop := client.Subscribe()
	defer stop()
	state := (<-events).State
	for {
		for state != zkview.StateConnected { // wait for a session, counting the intervals without one
			tick := time.NewTimer(interval)
			select {
			case <-ctx.Done():
				tick.Stop()
				return
			case e := <-events:
				state = e.State
			case <-tick.C:
				c.Fail("", fmt.Errorf("not connected to ZooKeeper (%s)", state), time.Now())
			}
			tick.Stop()
		}
		fctx, cancel := context.WithCancel(ctx)
		z.follow(fctx, client, c)
		for state == zkview.StateConnected {
			select {
			case <-ctx.Done():
				cancel()
				return
			case e := <-events:
				state = e.State
			}
		}
		cancel() // before Fail: a snapshot of the old follow is never applied after it
		c.Fail("", fmt.Errorf("connection to ZooKeeper lost (%s)", state), time.Now())
	}
}

// follow starts a Follow of each root, applying its snapshots while ctx
// lasts. A Follow blocked on a lost connection ends when it can; what it
// shows after ctx ended is dropped.
func (z ZooKeeper) follow(ctx context.Context, client *zkview.Client, c *Cluster) {
	for _, r := range c.Roots() {
		go func() {
			show := func(s follow.Snapshot) error {
				c.applyIf(ctx, r, s, time.Now())
				return nil
			}
			failed := func(err error) {
				if ctx.Err() == nil {
					c.Fail(r, err, time.Now())
				}
			}
			_ = follow.Follow(ctx, client, r, z.Options, show, failed) // show never fails
		}()
	}
}

// dial connects, every interval until it does or ctx ends (nil).
func (z ZooKeeper) dial(ctx context.Context, c *Cluster, interval time.Duration) *zkview.Client {
	for {
		client, err := z.Dial(ctx)
		if err == nil {
			return client
		}
		if ctx.Err() != nil {
			return nil
		}
		c.Fail("", fmt.Errorf("connecting: %w", err), time.Now())
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
	}
}

// applyIf is Apply unless ctx has ended (checked under the model's lock,
// so a cancel followed by Fail always wins).
func (c *Cluster) applyIf(ctx context.Context, rootPath string, s follow.Snapshot, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ctx.Err() == nil {
		c.applyLocked(rootPath, s, at)
	}
}

// Redis reads the locks matching each root (a key pattern) every
// Interval, each read bounded by the interval (at least [MinReadTimeout]);
// Redis has no watches.
type Redis struct {
	Client   *redisview.Client
	Interval time.Duration
}

// Mode is [ModePolling].
func (r Redis) Mode() Mode { return ModePolling }

// MinPoll is the shortest interval between two reads of Redis servers.
const MinPoll = 500 * time.Millisecond

// MinReadTimeout is the least time a read of Redis servers is given: a
// short interval must not fail reads that a busy server answers a little
// late.
const MinReadTimeout = 5 * time.Second

// Run reads c's patterns every interval until ctx ends.
func (r Redis) Run(ctx context.Context, c *Cluster) {
	interval := max(r.Interval, MinPoll)
	seen := map[string]*starts{}
	for {
		for _, pattern := range c.Roots() {
			rctx, cancel := context.WithTimeout(ctx, max(interval, MinReadTimeout))
			reads := r.Client.ReadLocks(rctx, pattern)
			cancel()
			if ctx.Err() != nil {
				return
			}
			if err := redisview.AllFailed(reads); err != nil {
				c.Fail(pattern, err, time.Now())
				delete(seen, pattern) // a holder read after a gap: its start unknown
				continue
			}
			now := time.Now()
			queues := redislock.Locks(reads, now)
			if seen[pattern] == nil {
				seen[pattern] = &starts{}
			}
			seen[pattern].note(queues, now)
			c.Apply(pattern, queues, now)
			if err := partial(reads); err != nil {
				c.countError(err) // a Redlock master down: decoded without it
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// partial is the errors of the servers that failed when others answered.
func partial(reads []redisview.Read) error {
	var errs []error
	for _, rd := range reads {
		if rd.Err != nil {
			errs = append(errs, rd.Err)
		}
	}
	return errors.Join(errs...)
}

// countError counts a read error that left the model usable.
func (c *Cluster) countError(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readErrors++
	c.lastErr = err.Error()
}

// starts is what the polls saw of each Redis participant (by node and
// token): when it was first read holding or waiting.
type starts struct {
	mu      sync.Mutex
	polled  bool
	holding map[string]time.Time // zero: holding at the first poll, start unknown
	waiting map[string]time.Time
}

// note fills queues' HeldSince and WaitSeen from what earlier polls saw.
func (s *starts) note(queues []lockops.Queue, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	holding, waiting := map[string]time.Time{}, map[string]time.Time{}
	for i := range queues {
		for j := range queues[i].Participants {
			p := &queues[i].Participants[j]
			key := p.Node + "\x00" + string(p.Data)
			switch p.State {
			case lockops.StateHolding:
				t, ok := s.holding[key]
				if !ok && s.polled {
					t = now
				}
				holding[key] = t
				if !t.IsZero() {
					p.HeldSince, p.HeldSource = t, lockops.HeldSeen
				}
			case lockops.StateWaiting:
				t, ok := s.waiting[key]
				if !ok {
					t = now
				}
				waiting[key], p.WaitSeen = t, t
			}
		}
	}
	s.holding, s.waiting, s.polled = holding, waiting, true
}
