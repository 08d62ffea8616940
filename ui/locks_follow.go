package ui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
)

// The `:locks` list kept current while shown: after the first scan (which
// draws its progress) lockops/follow follows the root with one persistent
// recursive watch (new lock directories appear, vanished ones leave, only
// changed locks are read again); without persistent watches, children
// watches and a rescan every locksRescanEvery (then new directories appear).

const locksRescanEvery = 30 * time.Second

// locksFollow is the follow of the shown `:locks` list; note says why it
// is not on a persistent watch ("" when it is).
type locksFollow struct {
	id     uint64
	ctx    context.Context
	cancel context.CancelFunc
	ch     <-chan tea.Msg
	note   string
}

// locksSnapMsg is a new look at the followed locks (or a failed scan).
type locksSnapMsg struct {
	id   uint64
	hits []searchHit
	note string
	err  error
}

// locksHits are the list's rows for queues.
func locksHits(qs []lockops.Queue) []searchHit {
	hits := make([]searchHit, 0, len(qs))
	for _, q := range qs {
		hits = append(hits, searchHit{Path: q.Path, Note: fmt.Sprintf("%s · %d", q.Kind, len(q.Participants))})
	}
	return hits
}

// followLocks starts following the locks below root for the list.
func (m *Model) followLocks(root string) tea.Cmd {
	m.stopLocksFollow()
	if m.client == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan tea.Msg, 1)
	id := m.nextID("locks-follow")
	m.search.follow = &locksFollow{id: id, cancel: cancel, ch: ch, ctx: ctx}
	go runLocksFollow(ctx, m.client, id, root, ch)
	return listenLocks(ctx, ch)
}

// runLocksFollow runs the follow until ctx ends, keeping only the newest
// look in ch (the list shows the present, not every step).
func runLocksFollow(ctx context.Context, c *zkview.Client, id uint64, root string, ch chan tea.Msg) {
	send := func(msg locksSnapMsg) {
		select {
		case <-ch: // superseded
		default:
		}
		ch <- msg // the only sender: room after the drain
	}
	note := ""
	o := follow.Options{NoVerify: true, Interval: locksRescanEvery, Note: func(s string) { note = s }}
	var all follow.Locks // a snapshot after the first holds only what changed
	follow.Follow(ctx, c, root, o, func(s follow.Snapshot) error {
		all.Apply(s)
		send(locksSnapMsg{id: id, hits: locksHits(all.Queues()), note: note})
		return nil
	}, func(err error) {
		send(locksSnapMsg{id: id, err: err, note: note})
	})
}

// listenLocks waits for the follow's next look (nothing once it ended).
func listenLocks(ctx context.Context, ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		select {
		case msg := <-ch:
			return msg
		case <-ctx.Done():
			return nil
		}
	}
}

// stopLocksFollow ends the follow (the list was left or replaced).
func (m *Model) stopLocksFollow() {
	if f := m.search.follow; f != nil {
		f.cancel()
		m.search.follow = nil
	}
}

// onLocksSnap shows a new look at the followed locks, the cursor kept on
// the lock it was on.
func (m *Model) onLocksSnap(msg locksSnapMsg) tea.Cmd {
	f := m.search.follow
	if f == nil || msg.id != f.id {
		return nil
	}
	f.note = msg.note
	if msg.err != nil {
		m.setStatus(common.LevelWarn, fmt.Sprintf("Could not read the locks below %s again (tried again in %s): %v",
			m.search.root, locksRescanEvery, msg.err))
		return listenLocks(f.ctx, f.ch)
	}
	s := &m.search
	at := ""
	if s.cursor < len(s.hits) {
		at = s.hits[s.cursor].Path
	}
	s.hits, s.scanned = msg.hits, len(msg.hits)
	for i, h := range s.hits {
		if h.Path == at {
			s.cursor = i
		}
	}
	s.cursor = max(min(s.cursor, len(s.hits)-1), 0)
	return listenLocks(f.ctx, f.ch)
}

// locksLiveNote is the list title's word on how it is kept current.
func (m *Model) locksLiveNote() string {
	if f := m.search.follow; f != nil && f.note != "" {
		return fmt.Sprintf(" · rescanned every %s", locksRescanEvery)
	} else if f != nil {
		return " · live"
	}
	return ""
}
