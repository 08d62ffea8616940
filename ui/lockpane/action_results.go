package lockpane

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/zkview"
)

// Results of the lock actions, one handler per message.

// updateActions routes the results of lock actions to their handlers.
func (p *Model) updateActions(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case takeProgressMsg:
		return p.onTakeProgress(msg)
	case takeDoneMsg:
		return p.onTakeDone(msg)
	case holdTickMsg:
		return p.onHoldTick(msg)
	case holdChangeMsg:
		return p.onHoldChange(msg)
	case releaseDoneMsg:
		return p.onReleaseDone(msg)
	case revokeDoneMsg:
		return p.onRevokeDone(msg)
	case evictDoneMsg:
		return p.onEvictDone(msg)
	}
	return nil
}

// onTakeProgress records where our take stands and, once our node exists, asks the root
// to show its lock.
func (p *Model) onTakeProgress(msg takeProgressMsg) tea.Cmd {
	a := &p.act
	if a.taking == nil || a.taking.id != msg.id {
		return nil
	}
	a.taking.progress = msg.p
	var cmd tea.Cmd
	if !a.taking.gone && msg.p.Path != "" {
		a.taking.gone = true
		lp := msg.p.Path
		cmd = func() tea.Msg { return GotoMsg{Path: lp} }
	}
	return tea.Batch(cmd, p.Reload())
}

// onTakeDone ends a take: held, stopped, refused or lost (then a rejoin is offered).
func (p *Model) onTakeDone(msg takeDoneMsg) tea.Cmd {
	a := &p.act
	if a.taking == nil || a.taking.id != msg.id {
		if msg.held != nil { // a take we stopped caring about: let go
			return releaseCmd(msg.held, false)
		}
		return nil
	}
	t := a.taking
	a.taking = nil
	if msg.err != nil {
		var denied *audit.DeniedError
		switch {
		case errors.Is(msg.err, context.Canceled):
			p.setNote(common.LevelInfo, "Stopped waiting for "+t.path+"; our node was deleted.")
		case errors.Is(msg.err, zkview.ErrReadOnly):
			p.setNote(common.LevelWarn, readOnlyLockNote)
		case errors.Is(msg.err, hold.ErrLost):
			// The session ended (or our node went) while we waited: the
			// place is gone for good; offer to queue again.
			p.setNote(common.LevelErr, "Lost our place in the queue of "+t.path+".")
			p.open(dialog.NewRejoinOffer(p.st, p.keys, t.path, msg.err.Error(), msg.opts))
		case errors.As(msg.err, &denied): // names who the ACL allows
			p.setNote(common.LevelErr, fmt.Sprintf("No permission to create nodes in %s (NoAuth): only %s may; connect as that (--auth-file, --sasl-user, --principal).",
				t.path, cmp.Or(strings.Join(denied.Allowed, ", "), "no one")))
		case errors.Is(msg.err, zk.ErrNoAuth):
			p.setNote(common.LevelErr, fmt.Sprintf("No permission to create nodes in %s (NoAuth): connect with credentials that may write there (--auth-file).", t.path))
		default:
			p.setNote(common.LevelErr, "Could not take "+t.path+": "+msg.err.Error())
		}
		return p.Reload()
	}
	a.held, a.holdState, a.holdReason, a.revokeAsked = msg.held, hold.StateHeld, "", false
	a.holdDeadline = time.Time{}
	p.setNote(common.LevelOK, fmt.Sprintf("We hold %s (%s). u releases it.", msg.held.Path, msg.held.Mode))
	var gotoLock tea.Cmd
	if !t.gone { // taken at once: its progress report may come after this
		lp := msg.held.Path
		gotoLock = func() tea.Msg { return GotoMsg{Path: lp} }
	}
	return tea.Batch(gotoLock, listenHold(msg.held, msg.changes), p.Reload())
}

// onHoldTick moves the SUSPENDED countdown on.
func (p *Model) onHoldTick(msg holdTickMsg) tea.Cmd {
	a := &p.act
	if msg.held != a.held || a.holdState != hold.StateSuspended {
		return nil
	}
	p.now = msg.at
	return holdTick(msg.held)
}

// onHoldChange follows the held lock: SUSPENDED, LOST (an alert), held again, a
// revocation request, our node deleted on the session's return.
func (p *Model) onHoldChange(msg holdChangeMsg) tea.Cmd {
	a := &p.act
	if !msg.ok {
		return nil
	}
	c := msg.ch
	cmd := listenHold(msg.held, msg.next)
	if c.NodeDeleted {
		// Whether or not it is still shown: the session came back after
		// we declared the lock lost, and lockops deleted our node.
		p.setNote(common.LevelWarn, common.Sentence(c.Reason)+".")
		return tea.Batch(cmd, p.Reload())
	}
	if msg.held != a.held {
		return cmd
	}
	if c.State == hold.StateHeld || c.State == hold.StateSuspended {
		a.holdDeadline = c.Deadline
	}
	if c.RevokeRequested {
		a.revokeAsked = true
		p.setNote(common.LevelWarn, "Someone asked for "+msg.held.Path+" (a revocation request): press u to release it.")
	}
	if c.State != a.holdState {
		a.holdState, a.holdReason = c.State, c.Reason
		switch c.State {
		case hold.StateSuspended:
			p.setNote(common.LevelWarn, "SUSPENDED: "+c.Reason)
			cmd = tea.Batch(cmd, holdTick(msg.held))
		case hold.StateLost:
			p.setNote(common.LevelErr, "LOST: "+c.Reason)
			p.open(dialog.NewLost(p.st, p.keys, msg.held.Path, c.Reason, c.WatchingForReturn))
		case hold.StateHeld:
			p.setNote(common.LevelOK, "Reconnected on the same session: we still hold "+msg.held.Path+".")
		}
	}
	return cmd
}

// onReleaseDone reports a release (and quits when the quit dialog asked for it).
func (p *Model) onReleaseDone(msg releaseDoneMsg) tea.Cmd {
	a := &p.act
	a.busy = ""
	if msg.held == a.held {
		a.held = nil
		a.holdState = hold.StateReleased
	}
	if msg.quit {
		return tea.Quit
	}
	if msg.err != nil {
		if errors.Is(msg.err, hold.ErrLost) {
			p.setNote(common.LevelWarn, "Nothing to release: "+msg.err.Error())
		} else {
			p.setNote(common.LevelErr, "Release failed: "+msg.err.Error())
			a.held, a.holdState = msg.held, msg.held.State()
		}
		return p.Reload()
	}
	p.setNote(common.LevelOK, "Released "+msg.held.Path+".")
	return p.Reload()
}

// onRevokeDone reports a revocation request's outcome.
func (p *Model) onRevokeDone(msg revokeDoneMsg) tea.Cmd {
	a := &p.act
	a.busy = ""
	var refused *lockops.Refusal
	switch {
	case errors.As(msg.err, &refused):
		p.setNote(common.LevelWarn, "Nothing written: "+msg.label+" "+strings.TrimPrefix(refused.Reason, "it ")+".")
	case msg.err != nil:
		p.setNote(common.LevelErr, "Revoke failed: "+msg.err.Error())
	case msg.res.Released:
		p.setNote(common.LevelOK, fmt.Sprintf("%s let go after the revocation request.", msg.label))
	default:
		p.setNote(common.LevelWarn, fmt.Sprintf("%s still holds the lock after %s: its client did not make the lock revocable. Force-delete (X) only if its process is stopped.", msg.label, dialog.RevokeWait))
	}
	p.aboutNodesLock(msg.node)
	return p.Reload()
}

// aboutNodesLock ties the note to the lock directory of node (a label
// like H1 names a node of that queue), which the pane may no longer show.
func (p *Model) aboutNodesLock(node string) {
	if node != "" {
		p.note.About, _ = common.SplitPath(node)
	}
}

// onEvictDone reports a force-delete's outcome.
func (p *Model) onEvictDone(msg evictDoneMsg) tea.Cmd {
	a := &p.act
	a.busy = ""
	var changed *evict.ChangedError
	var refused *lockops.Refusal
	switch {
	case errors.As(msg.err, &refused):
		p.setNote(common.LevelWarn, "Nothing deleted: "+msg.label+" "+strings.TrimPrefix(refused.Reason, "it ")+".")
	case errors.As(msg.err, &changed):
		p.setNote(common.LevelWarn, strings.ToUpper(changed.Error()[:1])+changed.Error()[1:]+". Look again before retrying.")
	case errors.Is(msg.err, zkview.ErrReadOnly):
		p.setNote(common.LevelWarn, readOnlyLockNote)
	case msg.err != nil:
		p.setNote(common.LevelErr, "Force-delete failed: "+msg.err.Error())
	case len(msg.next) > 0:
		p.setNote(common.LevelOK, fmt.Sprintf("Deleted %s; %s gets the lock.", msg.label, strings.Join(msg.next, ", ")))
	default:
		p.setNote(common.LevelOK, "Deleted "+msg.label+".")
	}
	p.aboutNodesLock(msg.node)
	return p.Reload()
}
