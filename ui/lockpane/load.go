package lockpane

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/history"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

// lockLoadedMsg answers the pane's own read of its lock directory. changed
// is the children watch set by that read.
type lockLoadedMsg struct {
	id      uint64
	path    string
	queue   lockops.Queue
	changed <-chan zk.Event
	at      time.Time
	err     error
	// decoded is how many of queue's problems the decoder found (the
	// first ones; rawOf takes off the rest for a verification).
	decoded int
	// cache is what this read knew of the children, for the next read.
	cache *scan.DirCache
	// children is how many children the directory had in this read.
	children int
	// zxid is the directory's pzxid in this read's listing: the last
	// change of its children the queue includes.
	zxid int64
	// splicer is the followed queue kept for the next events (follow.go).
	splicer *lockops.Splicer
	// readAt is when a followed read began (after waiting for events).
	readAt time.Time
}

// lockVerifiedMsg brings what the servers said (watch lists, client
// addresses) about the lock, and the queue of read id with it applied.
type lockVerifiedMsg struct {
	id    uint64 // the read whose queue was verified
	path  string
	ens   *zkview.Ensemble
	asked time.Time // when the servers were asked
	verified
}

// lockDirChangedMsg says the children of the shown lock directory changed
// (or, held, that a change held back by loadEvery is due now).
type lockDirChangedMsg struct {
	id   uint64
	path string
	held bool
}

// loadEvery is the shortest time between the starts of two reads of the
// shown lock: changes within it are read (and drawn) together, so a lock
// churning hundreds of times a second costs a few reads a second.
const loadEvery = 100 * time.Millisecond

// Show tells the pane whether it is on screen and for which directory. The
// root model calls it after every change; it is cheap when nothing moved.
// While shown, the pane watches the directory and re-reads the queue on
// each change; hidden, it stops.
func (p *Model) Show(visible bool, path string) tea.Cmd {
	if !visible || !p.canRead() {
		if p.visible {
			p.visible = false
			p.hiddenAt = p.clock()
			p.stopWatch()
			p.stopFollow()
			p.live = false
		}
		return nil
	}
	if p.visible && path == p.path && (p.live || p.loading || p.holding) {
		return nil
	}
	if path != p.path || p.staleAt(p.clock()) {
		p.resetDir(path)
	}
	p.visible = true
	return p.load()
}

// load starts a read of the shown directory unless one is in flight (then
// one more read follows it).
func (p *Model) load() tea.Cmd {
	if p.loader != nil {
		return p.loadThroughLoader() // a Redis key (redis.go)
	}
	if p.client == nil || p.path == "" {
		return nil
	}
	if p.loading {
		p.dirty = true
		return nil
	}
	if p.followable() {
		return p.loadFollowing() // follow.go
	}
	p.loading, p.dirty = true, false
	p.loadStarted = p.clock()
	p.loadID++
	return loadLockCmd(p.client, p.loadID, p.path, p.clock, p.ens, p.findings, p.sentences, p.dirCache)
}

// verifyDue reports whether it is time to ask the servers again. Asking
// costs a round of four-letter words to every member (and a slow or dead
// member makes it wait): at most once per reverifyEvery and never two at
// once, however busy the lock, and never holding up the queue's display.
func (p *Model) verifyDue() bool {
	return !p.verifying && (p.verifiedAt.IsZero() || p.clock().Sub(p.verifiedAt) >= reverifyEvery)
}

// Reload re-reads the shown directory now (after an action of ours).
func (p *Model) Reload() tea.Cmd {
	if !p.visible {
		return nil
	}
	return p.load()
}

func (p *Model) stopWatch() {
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
}

func (p *Model) onLoaded(msg lockLoadedMsg) tea.Cmd {
	if msg.id != p.loadID || msg.path != p.path {
		return nil // a read of a directory no longer shown
	}
	p.loading = false
	if !p.visible {
		return nil
	}
	if msg.err != nil {
		p.loadErr = msg.err
		p.live, p.counted = false, false
		if errors.Is(msg.err, zk.ErrNoNode) {
			p.SetQueueAt(lockops.Queue{Path: p.path, Kind: p.queue.Kind}, msg.at)
			p.loadErr = errors.New("the lock directory no longer exists")
		}
		if p.Following() {
			return p.followFailed(msg)
		}
		if p.dirty {
			return p.load()
		}
		return nil
	}
	p.loadErr = nil
	p.loadedAt = msg.at
	p.dirCache = msg.cache
	p.remember(&msg.queue, history.Moment{Zxid: msg.zxid, Time: msg.at}) // timeline.go: shares what it keeps
	p.setQueueAt(msg.queue, msg.at, false)                               // shared with the timeline: copied before a change
	p.children, p.counted = msg.children, true
	p.stopWatch()
	p.stop = make(chan struct{})
	p.live = true
	if p.Following() {
		return tea.Batch(p.followNext(msg)...)
	}
	cmds := []tea.Cmd{watchLockCmd(msg.changed, p.stop, msg.id, p.path)}
	if p.dirty {
		cmds = append(cmds, p.load())
	} else if p.verifyDue() && p.client != nil {
		p.verifying, p.verifiedAt = true, p.clock()
		cmds = append(cmds, verifyLockCmd(p.client, msg.id, p.path, rawOf(msg.queue, msg.decoded), p.pings, p.clock))
	}
	return tea.Batch(cmds...)
}

// onVerified keeps the servers' view for the following reads and shows
// the verified queue when no newer read came meanwhile (else it reads
// again, so the newer queue gets the fresh view too).
func (p *Model) onVerified(msg lockVerifiedMsg) tea.Cmd {
	if msg.path != p.path {
		return nil
	}
	p.verifying = false
	if msg.ens != nil {
		p.ens, p.ensAt = msg.ens, msg.asked
		p.findings, p.pings = msg.findings, msg.pings
		p.publishView() // to a followed read waiting for events
		p.samples = append(p.samples[max(len(p.samples)-2, 0):], msg.ens)
	}
	if !p.visible {
		return nil
	}
	if p.Following() {
		return p.followVerified(msg) // follow.go
	}
	if msg.id == p.loadID && !p.loading {
		p.setQueueAt(msg.queue, p.clock(), true)
		return nil
	}
	return p.load()
}

func (p *Model) onDirChanged(msg lockDirChangedMsg) tea.Cmd {
	if msg.held {
		p.holding = false
	}
	if msg.path != p.path || !p.visible {
		return nil
	}
	p.live = false
	if p.holding {
		return nil // the held-back read covers this change too
	}
	if wait := loadEvery - p.clock().Sub(p.loadStarted); wait > 0 && !msg.held {
		p.holding = true
		path := p.path
		return tea.Tick(wait, func(time.Time) tea.Msg { return lockDirChangedMsg{path: path, held: true} })
	}
	return p.load()
}

// loadLockCmd reads and decodes the lock at path, leaving a children watch
// on it, applies the servers' last known view ens (nil: none yet; a wait
// it does not list stays unknown until two answers judge it, see
// judgeWatches) and diagnoses:
// the queue's own checks, and the problems the servers' last answer found
// (f, see checks.go).
// Lock nodes do not change once written: only children that the last
// read's cache (nil: none) does not know are read ([scan.ReadDirAgain]),
// so a busy lock costs its arrivals, not its length, per change.
func loadLockCmd(c *zkview.Client, id uint64, path string, clock func() time.Time, ens *zkview.Ensemble, f *serverFindings, s *lockops.Sentences, cache *scan.DirCache) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		msg := lockLoadedMsg{id: id, path: path}
		type watched struct {
			names []string
			st    zk.Stat
			ch    <-chan zk.Event
		}
		w, err := zkview.Call(ctx, func() (watched, error) {
			names, st, ch, err := c.Conn().ChildrenW(c.Abs(path))
			if err != nil {
				return watched{}, err
			}
			return watched{names, *st, ch}, nil
		})
		if err != nil {
			msg.err, msg.at = err, clock()
			return msg
		}
		msg.changed, msg.zxid = w.ch, w.st.Pzxid
		d, next, err := scan.ReadDirAgain(ctx, c, path, w.names, w.st, cache)
		msg.cache = next
		if err != nil {
			msg.err, msg.at = err, clock()
			return msg
		}
		decodeLoaded(&msg, d, clock, ens, f, s)
		return msg
	}
}

// verifyTimeout bounds one round of questions to the servers.
const verifyTimeout = 2 * time.Second

// verifyLockCmd asks the servers (every member) which waits they see and
// which client each session comes from, and returns raw (the decoded
// queue of read id) with that applied and wholly diagnosed (verifyQueue;
// pings is the pane's record of sessions answering only pings, a copy).
func verifyLockCmd(c *zkview.Client, id uint64, path string, raw lockops.Queue, pings diagnose.PingWatch, clock func() time.Time) tea.Cmd {
	return func() tea.Msg {
		asked := clock()
		ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
		defer cancel()
		ens := c.Introspect(ctx)
		return lockVerifiedMsg{id: id, path: path, ens: ens, asked: asked, verified: verifyQueue(ctx, c, raw, ens, pings, clock())}
	}
}

// watchLockCmd waits for the children watch to fire (or for the pane to
// stop watching) and reports the change.
func watchLockCmd(ch <-chan zk.Event, stop <-chan struct{}, id uint64, path string) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case <-ch:
			return lockDirChangedMsg{id: id, path: path}
		case <-stop:
			return nil
		}
	}
}

// copyQueue copies q deeply enough that applying a view to the copy and
// diagnosing it leaves q as it was.
func copyQueue(q lockops.Queue) lockops.Queue {
	q.Participants = append([]lockops.Participant(nil), q.Participants...)
	q.Problems = append([]lockops.Problem(nil), q.Problems...)
	if q.Others != nil {
		others := make([]lockops.Queue, len(q.Others))
		for i, o := range q.Others {
			others[i] = copyQueue(o)
		}
		q.Others = others
	}
	return q
}
