package lockpane

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

// Following the shown lock with a persistent recursive watch (ZooKeeper
// 3.6+, zkview.Follow): each batch of events is applied to the cached
// directory (scan.ApplyEvents: arrivals read, departures dropped) as it
// comes, without listing the directory again. Where the server has no
// persistent watches the pane re-reads on one-shot children watches
// (load.go), and says so.

// followState is the pane's Follow of its directory.
type followState struct {
	f    *zkview.Follow
	path string
	// poll: re-read on one-shot watches even where Follow works (the
	// benchmark's old path, SetPolling).
	poll bool
	// retryAt: after a Follow failed for another reason than the server's
	// refusal, the pane polls until then.
	retryAt time.Time
	// lastID, lastQueue and lastDecoded are the last read's id, queue and
	// count of the decoder's problems, for a verification while no event
	// comes (rawOf, made when asked).
	lastID      uint64
	lastQueue   lockops.Queue
	lastDecoded int
	// readAt is when the last read of events began (the wall clock: the
	// wait for the next is timed against it).
	readAt time.Time
	// splicer keeps the last decoded queue for the next events to be
	// spliced into (nil: the next read decodes the directory whole); it
	// travels with the read in flight.
	splicer *lockops.Splicer
	// view is the servers' view the pane holds (publishView), which a
	// read waiting for events applies as it is when they come.
	view *atomic.Pointer[followView]
}

// followView is the servers' last answer as the reads apply it.
type followView struct {
	ens      *zkview.Ensemble
	findings *serverFindings
}

// publishView makes the servers' view the pane holds the one the read
// waiting for events (if any) applies.
func (p *Model) publishView() {
	if p.fol.view == nil {
		p.fol.view = new(atomic.Pointer[followView])
	}
	p.fol.view.Store(&followView{ens: p.ens, findings: p.findings})
}

// lockFollowMsg answers the start of a Follow of path.
type lockFollowMsg struct {
	id   uint64
	path string
	f    *zkview.Follow
	err  error
}

// errFollowEnded: the Follow stopped under a read waiting for its events.
var errFollowEnded = errors.New("the watch on the lock directory ended")

// SetPolling makes the pane re-read its lock on one-shot children watches
// even where persistent watches work (the old path, for comparisons).
func (p *Model) SetPolling(poll bool) { p.fol.poll = poll }

// Following says whether the shown lock is followed with a persistent
// watch (false: re-read on one-shot watches).
func (p *Model) Following() bool { return p.fol.f != nil && p.fol.path == p.path }

// followable says whether the next read should go through a Follow.
func (p *Model) followable() bool {
	if p.fol.poll || p.client == nil || p.clock().Before(p.fol.retryAt) {
		return false
	}
	ok, known := p.client.FollowSupported()
	return ok || !known
}

// stopFollow ends the Follow (its watch removed by its own goroutine: no
// I/O here).
func (p *Model) stopFollow() {
	if f := p.fol.f; f != nil {
		p.fol.f, p.fol.path = nil, ""
		go f.Stop()
	}
}

// loadFollowing starts the Follow of the shown directory, or waits for its
// next events and applies them.
func (p *Model) loadFollowing() tea.Cmd {
	p.loading, p.dirty = true, false
	p.loadStarted = p.clock()
	p.loadID++
	if !p.Following() {
		p.stopFollow()
		c, id, path := p.client, p.loadID, p.path
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
			defer cancel()
			f, err := c.Follow(ctx, path, true)
			return lockFollowMsg{id: id, path: path, f: f, err: err}
		}
	}
	if p.dirCache == nil {
		return followLockCmd(p.fol.f, p.client, p.loadID, p.path, p.clock, p.ens, p.findings, p.sentences, nil, nil)
	}
	p.publishView()
	sp := p.fol.splicer
	p.fol.splicer = nil // the read's until it comes back
	sp.Reuse(p.spare())
	p.sentences.ReuseProblems(p.spareProblemList())
	r := followRead{f: p.fol.f, c: p.client, id: p.loadID, path: p.path, clock: p.clock, view: p.fol.view, s: p.sentences, cache: p.dirCache, sp: sp}
	return r.afterEvents(p.fol.readAt.Add(followEvery))
}

func (p *Model) onFollowStarted(msg lockFollowMsg) tea.Cmd {
	if msg.id != p.loadID || msg.path != p.path || !p.visible {
		if msg.f != nil {
			go msg.f.Stop()
		}
		if msg.id == p.loadID {
			p.loading = false
		}
		return nil
	}
	p.loading = false
	if msg.err != nil {
		if !errors.Is(msg.err, zkview.ErrFollowUnsupported) {
			p.fol.retryAt = p.clock().Add(30 * time.Second)
		}
		return p.load() // re-read on one-shot watches
	}
	p.fol.f, p.fol.path = msg.f, msg.path
	p.dirCache, p.fol.splicer = nil, nil // the Follow's first event reads it whole
	return p.load()
}

// followEvery is the shortest time between the starts of two reads of a
// followed lock: the events within it are read (and drawn) together, so a
// lock churning hundreds of times a second costs tens of reads a second.
const followEvery = 12 * time.Millisecond

// followRead is one read of a followed lock's events: what it needs, as
// the pane hands it over (the cache, the splicer) or as it is when the
// events come (the servers' view).
type followRead struct {
	f     *zkview.Follow
	c     *zkview.Client
	id    uint64
	path  string
	clock func() time.Time
	view  *atomic.Pointer[followView]
	s     *lockops.Sentences
	cache *scan.DirCache
	sp    *lockops.Splicer
}

// afterEvents waits for the Follow's next events, and until notBefore,
// then reads what they changed with the servers' view as it is then (not
// as it was when the wait began): one command, so a read costs the
// program one message.
func (r followRead) afterEvents(notBefore time.Time) tea.Cmd {
	return func() tea.Msg {
		if !waitEvents(r.f, notBefore) {
			return lockLoadedMsg{id: r.id, path: r.path, err: errFollowEnded, at: r.clock()}
		}
		v := r.view.Load()
		readAt := time.Now()
		msg := followLockCmd(r.f, r.c, r.id, r.path, r.clock, v.ens, v.findings, r.s, r.cache, r.sp)().(lockLoadedMsg)
		msg.readAt = readAt
		return msg
	}
}

// waitEvents waits until notBefore, and for f's next events; false when
// the Follow ended meanwhile. The time first: under churn the events are
// there by then, and the goroutine wakes once per read, not twice.
func waitEvents(f *zkview.Follow, notBefore time.Time) bool {
	if wait := time.Until(notBefore); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-f.Done():
			return false
		}
	}
	select {
	case <-f.Ready():
	case <-f.Done():
		return false
	}
	return true
}

// followLockCmd applies f's queued events to cache (nil: the directory is
// read whole) and brings the queue up to date: spliced by sp where the
// recipe allows (lockops.Splicer: only the nodes that came, left or lost
// their predecessor are decoded), else decoded whole as loadLockCmd does.
func followLockCmd(f *zkview.Follow, c *zkview.Client, id uint64, path string, clock func() time.Time, ens *zkview.Ensemble, fi *serverFindings, s *lockops.Sentences, cache *scan.DirCache, sp *lockops.Splicer) tea.Cmd {
	return func() tea.Msg {
		msg := lockLoadedMsg{id: id, path: path}
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		dl, next, err := scan.ApplyEventsDelta(ctx, c, path, cache, f.Take())
		msg.cache = next
		if err != nil {
			msg.err, msg.at = err, clock()
			return msg
		}
		msg.zxid = dl.Dir.Stat.Pzxid
		if !dl.Whole {
			if q, ok := sp.Splice(dl.Dir, dl.Gone, dl.Fresh); ok {
				msg.children, msg.splicer = len(next.Children), sp
				showDecoded(&msg, q, clock, ens, fi, s)
				return msg
			}
		}
		d := dl.Dir
		if !dl.Whole {
			if d, _, err = scan.CachedDir(ctx, c, dl.Dir.Stat, next); err != nil {
				msg.err, msg.at = err, clock()
				return msg
			}
		}
		msg.children = len(d.Children)
		q := lockops.Decode(d, lockops.DecodeOptions{})
		msg.splicer = lockops.NewSplicer(q, lockops.DecodeOptions{})
		showDecoded(&msg, q, clock, ens, fi, s)
		return msg
	}
}

// decodeLoaded decodes d into msg (the queue with the servers' last view
// applied, as the pane shows it).
func decodeLoaded(msg *lockLoadedMsg, d lockops.Dir, clock func() time.Time, ens *zkview.Ensemble, f *serverFindings, s *lockops.Sentences) {
	msg.children = len(d.Children)
	showDecoded(msg, lockops.Decode(d, lockops.DecodeOptions{}), clock, ens, f, s)
}

// showDecoded puts q, a decoded queue (the caller's to change), into msg
// with the servers' last view applied, as the pane shows it.
func showDecoded(msg *lockLoadedMsg, q lockops.Queue, clock func() time.Time, ens *zkview.Ensemble, f *serverFindings, s *lockops.Sentences) {
	q.Path = msg.path
	msg.decoded = len(q.Problems)
	msg.at = clock()
	q.ReadAt = msg.at
	msg.queue = viewedQueue(q, ens, f, msg.at, s)
}

// followNext is what follows a read while following: the next batch of
// events, and the servers' view when it is due.
func (p *Model) followNext(msg lockLoadedMsg) []tea.Cmd {
	p.fol.splicer = msg.splicer
	if !msg.readAt.IsZero() {
		p.fol.readAt = msg.readAt
	}
	p.fol.lastID, p.fol.lastQueue, p.fol.lastDecoded = msg.id, msg.queue, msg.decoded
	cmds := []tea.Cmd{p.load()}
	if p.verifyDue() {
		cmds = append(cmds, p.verifyNow())
	}
	return cmds
}

// verifyNow asks the servers about the last read's queue.
func (p *Model) verifyNow() tea.Cmd {
	p.verifying, p.verifiedAt = true, p.clock()
	return verifyLockCmd(p.client, p.fol.lastID, p.path, p.lastRaw(), p.pings, p.clock)
}

// followFailed is what follows a failed read while following: the
// directory's deletion waits for its events; another failure reads the
// directory whole a second later.
func (p *Model) followFailed(msg lockLoadedMsg) tea.Cmd {
	p.dirCache, p.fol.splicer = msg.cache, nil
	if msg.cache != nil {
		return p.load()
	}
	if errors.Is(msg.err, errFollowEnded) {
		p.stopFollow()
	}
	path := p.path
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return lockDirChangedMsg{path: path, held: true} })
}

// followVerified shows the servers' answer: on the queue it was asked
// about, or, when a newer read came meanwhile, applied to that read's
// queue (a quiet lock has no next read to carry it; no I/O: the view is
// applied here, once per answer).
// With no event pending the last read is the server's present: the
// queue is as of now (a quiet lock's waits can be judged).
func (p *Model) followVerified(msg lockVerifiedMsg) tea.Cmd {
	now, pending := p.clock(), p.fol.f.Pending()
	if msg.id == p.fol.lastID && pending {
		p.setQueueAt(msg.queue, now, true)
		return nil
	}
	raw := p.lastRaw()
	if !pending {
		raw.ReadAt = now
	}
	p.setQueueAt(viewedQueue(raw, p.ens, p.findings, now, p.sentences), now, true)
	return nil
}

// spare is the participants of a live state the timeline let go, for the
// next splice to write into (nil when none, or when the queue shown or
// the last read's shares them: then they are not spare).
func (p *Model) spare() []lockops.Participant {
	buf := p.hist.spare
	p.hist.spare = nil
	if cap(buf) == 0 || sameMemory(buf, p.queue.Participants) || sameMemory(buf, p.fol.lastQueue.Participants) {
		return nil
	}
	return buf
}

// spareProblemList is the problems of a queue the pane showed before the
// one shown now, for the next diagnosis to write into (nil when the queue
// shown or the last read's shares them).
func (p *Model) spareProblemList() []lockops.Problem {
	buf := p.spareProblems
	p.spareProblems = nil
	if cap(buf) == 0 || sameMemory(buf, p.queue.Problems) || sameMemory(buf, p.fol.lastQueue.Problems) {
		return nil
	}
	return buf
}

// sameMemory says whether a and b are slices of one array.
func sameMemory[T any](a, b []T) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:cap(a)][cap(a)-1] == &b[:cap(b)][cap(b)-1]
}

// lastRaw is the last read's decoded queue, without the servers' view.
func (p *Model) lastRaw() lockops.Queue { return rawOf(p.fol.lastQueue, p.fol.lastDecoded) }
