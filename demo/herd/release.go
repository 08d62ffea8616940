package herd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview/fourlw"
)

// release is one turn of the lock: the servers' watchers of the holder's
// node sampled, the holder told to release, every woken contender
// followed until the next holder holds and the others wait again, then
// the released contender queued again (its requests are not the
// release's).
func (l *lock) release(ctx context.Context, servers []string) (Release, error) {
	holder := l.cts[l.holder]
	r := Release{Lock: l.style, N: l.releases + 1, Released: holder.node, ReleasedBy: lockops.FormatSession(holder.session)}
	sample, err := sampleWatches(ctx, servers, l.sessions, holder.node, l.dir)
	if err != nil {
		return r, err
	}
	watchers := sample.watchers
	r.ServerNotifications, r.WatchesBefore, r.WatchedNodes = len(watchers), sample.watches, sample.nodes
	r.OtherWatchers = sample.others
	t0 := time.Now()
	holder.cmds <- cmdRelease
	next, notified, err := l.follow(ctx, r.Released, watchers, &r.Counts)
	if err != nil {
		return r, err
	}
	r.Handover = next.at.Sub(t0)
	r.Holder, r.HeldBy = l.cts[next.who].node, lockops.FormatSession(l.cts[next.who].session)
	if !sameSessions(notified, watchers) {
		return r, fmt.Errorf("the servers listed sessions %s watching %s, but sessions %s were notified",
			sessionList(watchers), r.Released, sessionList(notified))
	}
	l.holder = next.who
	holder.cmds <- cmdJoin
	if err := l.await(ctx, holder.id, evWaiting); err != nil {
		return r, fmt.Errorf("contender %d queueing again: %w", holder.id+1, err)
	}
	return r, nil
}

// follow reads the contenders' reports after a release until the holder
// has released, someone holds, every session the servers listed watching
// the node was notified and every notified contender settled; the counts
// go into c. It returns the new holder's event and the sessions notified.
func (l *lock) follow(ctx context.Context, released string, watchers []int64, c *Counts) (event, []int64, error) {
	var next event
	holding, releasedDone := false, false
	busy := map[int]bool{} // notified, not yet settled
	var notified []int64
	timer := time.NewTimer(settleTimeout)
	defer timer.Stop()
	for !releasedDone || !holding || len(busy) > 0 || len(notified) < len(watchers) {
		select {
		case ev := <-l.events:
			switch ev.kind {
			case evFailed:
				return next, notified, ev.err
			case evReleased:
				releasedDone = true
			case evNotified:
				c.Notifications++
				busy[ev.who] = true
				notified = append(notified, l.cts[ev.who].session)
			case evRequest:
				c.Requests++
			case evRead:
				c.Requests++
				c.Reads++
			case evHolding:
				holding, next = true, ev
				delete(busy, ev.who)
			case evWaiting:
				delete(busy, ev.who)
			}
		case <-ctx.Done():
			return next, notified, errEnded
		case <-timer.C:
			return next, notified, fmt.Errorf("%s released: within %s, %d of the %d sessions the servers listed watching it were notified, and holding=%v",
				released, settleTimeout, len(notified), len(watchers), holding)
		}
	}
	return next, notified, nil
}

// watchSample is what the servers' wchc said of one lock's contenders
// before a release: the sessions watching the holder's node, the
// watches on the lock's nodes with how many nodes they are on, and how
// many other sessions (someone watching the demo) watch the holder's node.
type watchSample struct {
	watchers []int64
	watches  int
	nodes    int
	others   int
}

// sampleWatches asks every server which sessions watch what (wchc) and
// keeps what the contenders (sessions) watch of node, the holder's, and
// of the nodes at or below dir.
func sampleWatches(ctx context.Context, servers []string, sessions map[int64]bool, node, dir string) (watchSample, error) {
	var w watchSample
	nodes := map[string]bool{}
	for _, addr := range servers {
		text, err := fourlw.FourLetterWord(ctx, nil, addr, "wchc", 0)
		if err != nil {
			return w, fmt.Errorf("the servers' watches: %w", err)
		}
		bySession, err := fourlw.ParseWchc(text)
		if err != nil {
			return w, fmt.Errorf("the servers' watches: %w", err)
		}
		for s, paths := range bySession {
			switch {
			case !sessions[s]:
				if slices.Contains(paths, node) {
					w.others++
				}
				continue
			case slices.Contains(paths, node):
				w.watchers = append(w.watchers, s)
			}
			for _, p := range paths {
				if p == dir || strings.HasPrefix(p, dir+"/") {
					w.watches++
					nodes[p] = true
				}
			}
		}
	}
	w.nodes = len(nodes)
	return w, nil
}

func sameSessions(a, b []int64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func sessionList(ss []int64) string {
	if len(ss) == 0 {
		return "(none)"
	}
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = lockops.FormatSession(s)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
