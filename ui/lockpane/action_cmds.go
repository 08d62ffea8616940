package lockpane

// The lock pane's commands: they do the I/O of the lock actions (through
// lockops, audited) and of the pane's own reads (load.go). Each captures
// the values it needs before its closure and returns a message.

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/zkview"
)

// fetchTimeout bounds one read or one change.
const fetchTimeout = 10 * time.Second

// takeCmd runs take.Take (blocking until the lock is ours, ctx ends or
// it fails) and reports where we stand through progress.
func takeCmd(ctx context.Context, c *zkview.Client, id uint64, lockPath string, o take.Options, progress chan take.Progress) tea.Cmd {
	return func() tea.Msg {
		o.Progress = func(pr take.Progress) {
			for {
				select {
				case progress <- pr:
					return
				default:
					select { // full: drop the oldest, never the newest
					case <-progress:
					default:
					}
				}
			}
		}
		asked := o
		asked.Progress = nil
		h, err := take.Take(ctx, c, lockPath, o)
		close(progress) // Take has returned: no more Progress calls
		msg := takeDoneMsg{id: id, path: lockPath, opts: asked, held: h, err: err}
		if h != nil {
			msg.changes = h.Changes()
		}
		return msg
	}
}

// planTakeCmd asks lockops how the take dialog's choices would take the
// lock (reading, never writing).
func planTakeCmd(c *zkview.Client, id uint64, lockPath string, o take.Options) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		plan, err := take.PlanTake(ctx, c, lockPath, o)
		return dialog.TakePlanMsg{ID: id, Plan: plan, Err: err}
	}
}

// listenTakeProgress delivers the take's progress reports one at a time.
func listenTakeProgress(ch <-chan take.Progress, id uint64) tea.Cmd {
	return func() tea.Msg {
		pr, ok := <-ch
		if !ok {
			return nil
		}
		return takeProgressMsg{id: id, p: pr}
	}
}

// listenHold delivers the held lock's state changes one at a time.
func listenHold(h *take.Held, ch <-chan hold.Change) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		c, ok := <-ch
		return holdChangeMsg{held: h, ch: c, ok: ok, next: ch}
	}
}

// holdTickEvery paces the SUSPENDED countdown.
const holdTickEvery = 100 * time.Millisecond

// holdTick moves the countdown of h on while it is suspended.
func holdTick(h *take.Held) tea.Cmd {
	return tea.Tick(holdTickEvery, func(t time.Time) tea.Msg { return holdTickMsg{held: h, at: t} })
}

func releaseCmd(h *take.Held, quit bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		return releaseDoneMsg{held: h, err: h.Release(ctx), quit: quit}
	}
}

func revokeCmd(c *zkview.Client, node, label string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), dialog.RevokeWait+fetchTimeout)
		defer cancel()
		res, err := evict.Revoke(ctx, c, node, dialog.RevokeWait)
		return revokeDoneMsg{node: node, label: label, res: res, err: err}
	}
}

func previewEvictCmd(c *zkview.Client, id uint64, node string) tea.Cmd {
	if c == nil {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		// The preview of a system's leader node is not refused: the
		// dialog asks for its leader confirmation in place of --force-leader.
		pv, err := evict.PreviewEvict(ctx, c, node, evict.Options{ForceLeader: true})
		return dialog.EvictPreviewMsg{ID: id, Node: node, Preview: pv, Err: err}
	}
}

// evictCmd deletes pv's node if it is still the one shown; next names the
// nodes that get the lock then (for the message). forceLeader: the
// operator typed the leader confirmation of a system's leader node.
func evictCmd(c *zkview.Client, pv *evict.Preview, label string, next []string, forceLeader bool) tea.Cmd {
	node, want := pv.Node, pv.Expect
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		err := evict.Evict(ctx, c, node, want, evict.Options{ForceLeader: forceLeader})
		return evictDoneMsg{node: node, label: label, next: next, err: err}
	}
}
