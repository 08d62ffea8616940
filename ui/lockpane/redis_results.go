package lockpane

// The Redis lock actions' commands and the handling of their results, and
// the pane's lines about our Redis lock (waiting, held, suspended, lost).

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
)

// updateRedisActions routes the results of the Redis lock actions.
func (p *Model) updateRedisActions(msg redisPaneMsg) tea.Cmd {
	a := &p.redis
	switch msg := msg.(type) {
	case redisTakeProgressMsg:
		if a.taking != nil && a.taking.id == msg.id {
			a.taking.progress = msg.p
			return tea.Batch(listenRedisProgress(msg.ch, msg.id), p.Reload())
		}
	case redisTakeDoneMsg:
		return p.onRedisTakeDone(msg)
	case redisHoldChangeMsg:
		return p.onRedisHoldChange(msg)
	case redisReleaseDoneMsg:
		p.act.busy = ""
		if msg.err != nil {
			p.setNote(common.LevelErr, "Release of "+msg.held.Key+": "+redisErrText(msg.err))
		} else {
			p.setNote(common.LevelOK, "Released "+msg.held.Key+".")
		}
		if msg.quit {
			return tea.Quit
		}
		return p.Reload()
	case redisEvictPreviewMsg:
		p.act.busy = ""
		if msg.err != nil {
			p.setNote(common.LevelErr, redisErrText(msg.err))
			return nil
		}
		d := dialog.NewRedisEvict(p.st, p.keys, msg.pv)
		p.open(d)
		return d.Init()
	case redisEvictDoneMsg:
		p.act.busy = ""
		if msg.err != nil {
			p.setNote(common.LevelErr, redisErrText(msg.err))
		} else {
			p.setNote(common.LevelOK, fmt.Sprintf("Deleted %s on %d server(s); the next client to try takes it.", msg.key, msg.n))
		}
		return p.Reload()
	}
	return nil
}

func (p *Model) onRedisTakeDone(msg redisTakeDoneMsg) tea.Cmd {
	a := &p.redis
	if a.taking == nil || a.taking.id != msg.id {
		if msg.held != nil { // a take we stopped caring about: let go
			return redisReleaseCmd(msg.held, false)
		}
		return nil
	}
	a.taking = nil
	switch {
	case errors.Is(msg.err, context.Canceled):
		p.setNote(common.LevelInfo, "Stopped waiting for "+msg.key+"; nothing of ours is left there.")
		return nil
	case msg.err != nil:
		p.setNote(common.LevelErr, redisErrText(msg.err))
		return nil
	}
	a.held, a.state, a.reason = msg.held, hold.StateHeld, ""
	p.setNote(common.LevelOK, fmt.Sprintf("We hold %s; zkscope extends it every %s. u releases it.", msg.key, common.FormatAge(msg.held.TTL/3)))
	return tea.Batch(listenRedisHold(msg.held, msg.changes), p.Reload())
}

func (p *Model) onRedisHoldChange(msg redisHoldChangeMsg) tea.Cmd {
	a := &p.redis
	if msg.held != a.held || !msg.ok {
		return nil
	}
	a.state, a.reason = msg.ch.State, msg.ch.Reason
	switch msg.ch.State {
	case hold.StateSuspended:
		p.setNote(common.LevelWarn, "SUSPENDED: "+msg.held.Key+" could not be extended ("+msg.ch.Reason+"); it is lost at the deadline unless a server answers.")
	case hold.StateLost:
		p.setNote(common.LevelErr, "LOST "+msg.held.Key+": "+msg.ch.Reason+". It stays lost: t takes it again.")
	case hold.StateHeld:
		p.setNote(common.LevelOK, "Holding "+msg.held.Key+" again: an extension reached the servers.")
	}
	return tea.Batch(listenRedisHold(msg.held, msg.next), p.Reload())
}

// confirmQuitRedis opens the "you hold a Redis lock" dialog.
func (p *Model) confirmQuitRedis() tea.Cmd {
	p.open(dialog.NewRedisQuit(p.st, p.keys, p.redis.held.Key))
	return nil
}

// redisBannerLines say where our Redis lock stands: waiting (behind
// whom), held (until when), suspended or lost.
func (p *Model) redisBannerLines() []string {
	st, a := p.st, &p.redis
	if t := a.taking; t != nil {
		line := "⧗ waiting " + common.FormatAge(p.now.Sub(t.started)) + " for " + printable.String(t.key)
		if h := t.progress.Holder; h != "" {
			line += " · held by " + common.DataSummary([]byte(h))
			if t.progress.TTL > 0 {
				line += " for " + common.FormatAge(t.progress.TTL) + " more"
			}
		}
		return []string{st.Warning.Render(line + " · u stops")}
	}
	h := a.held
	if h == nil || a.state == hold.StateReleased {
		return p.redlockLines()
	}
	switch a.state {
	case hold.StateLost:
		return []string{st.Error.Render("✕ LOST " + printable.String(h.Key+": "+a.reason))}
	case hold.StateSuspended:
		return []string{st.Warning.Render(fmt.Sprintf("⚠ SUSPENDED %s: lost in %s unless a server answers", printable.String(h.Key), common.FormatAge(h.Deadline().Sub(p.now))))}
	}
	return []string{st.Holder.Render(fmt.Sprintf("● we hold %s · safe for %s · u releases", printable.String(h.Key), common.FormatAge(h.Deadline().Sub(p.now))))}
}

// redisTakeCmd runs redislock.Take (blocking until the lock is ours,
// ctx ends or it fails), reporting what it waits behind through progress.
func redisTakeCmd(ctx context.Context, c *redisview.Client, id uint64, key string, o redislock.TakeOptions, progress chan redislock.Progress) tea.Cmd {
	return func() tea.Msg {
		o.Progress = func(pr redislock.Progress) {
			select {
			case progress <- pr:
			default: // full: the pane shows the newest it gets
			}
		}
		h, err := redislock.Take(ctx, c, key, o)
		close(progress)
		msg := redisTakeDoneMsg{id: id, key: key, held: h, err: err}
		if h != nil {
			msg.changes = h.Changes()
		}
		return msg
	}
}

// listenRedisProgress delivers the take's progress reports one at a time
// (each message re-arms it).
func listenRedisProgress(ch <-chan redislock.Progress, id uint64) tea.Cmd {
	return func() tea.Msg {
		pr, ok := <-ch
		if !ok {
			return nil
		}
		return redisTakeProgressMsg{id: id, p: pr, ch: ch}
	}
}

// listenRedisHold delivers the held lock's state changes one at a time.
func listenRedisHold(h *redislock.Held, ch <-chan hold.Change) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		c, ok := <-ch
		return redisHoldChangeMsg{held: h, ch: c, ok: ok, next: ch}
	}
}

func redisReleaseCmd(h *redislock.Held, quit bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		return redisReleaseDoneMsg{held: h, err: h.Release(ctx), quit: quit}
	}
}

func redisEvictPreviewCmd(c *redisview.Client, id uint64, key string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		pv, err := redislock.PreviewEvict(ctx, c, key)
		return redisEvictPreviewMsg{id: id, key: key, pv: pv, err: err}
	}
}

// redisEvictCmd deletes pv's key where it still holds pv's token.
func redisEvictCmd(c *redisview.Client, pv *redislock.EvictPreview, o redislock.EvictOptions) tea.Cmd {
	key, token := pv.Key, pv.Token
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		n, err := redislock.Evict(ctx, c, key, token, o)
		return redisEvictDoneMsg{key: key, n: n, err: err}
	}
}

// redlockLines say, for a Redlock a majority holds, how long its validity
// lasts (counting down between reads).
func (p *Model) redlockLines() []string {
	q := &p.queue
	if q.Kind != lockops.KindRedlock || !q.HasValidity {
		return nil
	}
	left := q.Validity - max(p.now.Sub(p.loadedAt), 0)
	return []string{p.st.Muted.Render(fmt.Sprintf("a majority holds it · validity %s (the least TTL among them, less clock drift)", common.FormatAge(left)))}
}
