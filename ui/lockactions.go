package ui

import (
	"context"
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// Lock actions: take (join a queue as a real contender), release, revoke
// (Curator revocable locks) and force-delete, each through lockops (audited,
// refused in read-only mode) from a command. Their state lives in the lock
// pane and outlives the directory shown.

// readOnlyLockNote is what every refused lock action says.
const readOnlyLockNote = "Read-only: taking, releasing, revoking and force-deleting locks are disabled (--read-only or the context's read_only)."

// lockActions is what we do with locks: the take in progress, the lock we
// hold, and the open dialog.
type lockActions struct {
	seq uint64 // action ids

	taking *takeState

	held        *lockops.Held
	holdState   lockops.HoldState
	holdReason  string
	revokeAsked bool
	// holdDeadline is when the lock must be treated as lost unless the
	// servers answer (shown as a countdown while SUSPENDED).
	holdDeadline time.Time

	// quitting: the quit dialog released the lock; quit when done.
	quitting bool
	busy     string // an action in flight ("Releasing…")
}

// takeState is a take waiting for the lock.
type takeState struct {
	id       uint64
	path     string
	mode     lockops.Mode
	cancel   context.CancelFunc
	progress lockops.Progress
	started  time.Time
	gone     bool // lockGotoMsg sent
}

func (a *lockActions) waiting() bool { return a.taking != nil }

// holding reports whether we hold a lock that is not lost.
func (a *lockActions) holding() bool {
	return a.held != nil && (a.holdState == lockops.StateHeld || a.holdState == lockops.StateSuspended)
}

// isOurs reports whether node is the node of our take or our lock.
func (a *lockActions) isOurs(node string) bool {
	if node == "" {
		return false
	}
	if a.held != nil && a.held.Node == node && a.holdState != lockops.StateReleased {
		return true
	}
	return a.taking != nil && a.taking.progress.Node == node
}

// Messages of the lock actions.
type (
	takeProgressMsg struct {
		id uint64
		p  lockops.Progress
	}
	takeDoneMsg struct {
		id      uint64
		path    string
		opts    lockops.TakeOptions // as asked (to rejoin with)
		held    *lockops.Held
		changes <-chan lockops.HoldChange
		err     error
	}
	// holdTickMsg moves the SUSPENDED countdown on.
	holdTickMsg struct {
		held *lockops.Held
		at   time.Time
	}
	holdChangeMsg struct {
		held *lockops.Held
		ch   lockops.HoldChange
		ok   bool
		next <-chan lockops.HoldChange
	}
	releaseDoneMsg struct {
		held *lockops.Held
		err  error
		quit bool
	}
	revokeDoneMsg struct {
		node, label string
		res         lockops.RevokeResult
		err         error
	}
	evictDoneMsg struct {
		node, label string
		next        []string
		err         error
	}
	// lockGotoMsg asks the root model to put the cursor on a lock
	// directory (our take's, once its node exists).
	lockGotoMsg struct{ path string }
)

// Modal reports whether a lock dialog is open: the root model then sends
// every key to [LockPane.Update].
func (p *LockPane) Modal() bool { return p.dialogID != "" && p.dialogs.Has(p.dialogID) }

// open shows d in front, in place of the lock dialog the pane opened
// before (one lock dialog at a time).
func (p *LockPane) open(d dialog.Dialog) {
	if p.dialogID != "" {
		p.dialogs.Close(p.dialogID)
	}
	p.dialogs.Open(d)
	p.dialogID = d.ID()
}

// Held is the lock we hold or held last (nil when none).
func (p *LockPane) Held() *lockops.Held { return p.act.held }

// Holding reports whether we hold a lock (held or suspended): quitting
// should ask first ([LockPane.ConfirmQuit]).
func (p *LockPane) Holding() bool { return p.act.holding() }

// ConfirmQuit opens the "you hold a lock" dialog; its answer releases the
// lock and quits, or stays.
func (p *LockPane) ConfirmQuit() tea.Cmd {
	p.open(dialog.NewQuitHolding(p.st, p.keys, p.act.held, p))
	return nil
}

// Close stops a take in progress (its node is deleted); the program is
// ending.
func (p *LockPane) Close() {
	if t := p.act.taking; t != nil && t.cancel != nil {
		t.cancel()
	}
}

// setNote shows a one-line result in the pane's footer.
func (p *LockPane) setNote(level common.Level, text string) {
	p.note = common.Status{Text: text, Level: level, At: p.clock()}
}

// ActionKey handles a lock action key pressed anywhere in the tree or the
// lock pane: cursorPath is the node under the tree cursor and onLock says
// whether it is the lock directory the pane shows. It reports whether the
// key was a lock action.
func (p *LockPane) ActionKey(msg tea.KeyPressMsg, cursorPath string, onLock bool) (tea.Cmd, bool) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Take):
		return p.startTake(cursorPath, onLock), true
	case key.Matches(msg, k.Release):
		return p.release(false), true
	case key.Matches(msg, k.Revoke), key.Matches(msg, k.ForceDelete):
		if p.readOnly {
			p.setNote(common.LevelWarn, readOnlyLockNote)
			return nil, true
		}
		if !onLock || !p.have || cursorPath != p.path {
			p.setNote(common.LevelWarn, "Put the cursor on a lock directory first, then pick a node with ↑/↓ in the lock pane (tab).")
			return nil, true
		}
		x, ok := p.selected()
		if !ok {
			p.setNote(common.LevelWarn, "Pick a node of the queue first (tab, then ↑/↓).")
			return nil, true
		}
		if p.act.isOurs(x.Node) {
			p.setNote(common.LevelInfo, "That is our own node: press u to release it.")
			return nil, true
		}
		if key.Matches(msg, k.Revoke) {
			if why := revokeRefusal(p.queue.Kind, x, p.labels[x.Node]); why != "" {
				p.setNote(common.LevelWarn, why)
				return nil, true
			}
			p.open(dialog.NewRevoke(p.st, p.keys, x, p.labels[x.Node]))
			return nil, true
		}
		if !lockops.Recognised(p.queue.Kind) {
			p.setNote(common.LevelWarn, "zkscope does not recognise this lock's recipe, so it will not force-delete its nodes here: use `zkscope evict --any-node` if you must.")
			return nil, true
		}
		p.act.seq++
		id := p.act.seq
		d := dialog.NewForceDelete(p.st, p.keys, x, p.labels[x.Node], id, p)
		p.open(d)
		return tea.Batch(d.Init(), previewEvictCmd(p.client, id, x.Node)), true
	}
	return nil, false
}

// revokeRefusal says in one status line why R does nothing on x (labelled
// label) in a lock of kind k, "" when x can be asked to let go.
func revokeRefusal(k lockops.Kind, x lockops.Participant, label string) string {
	switch {
	case !lockops.Recognised(k):
		return "zkscope does not recognise this lock's recipe: only the holder of a Curator lock can be revoked."
	case lockops.NotRevocable(k, x) == "":
		return ""
	case x.State != lockops.StateHolding:
		return label + " is waiting, not holding: only a holder can be asked to let go. Use X to remove a waiter."
	case k != lockops.KindCuratorMutex && k != lockops.KindCuratorRW:
		return label + " holds a " + string(k) + ", which cannot be revoked (only Curator mutexes and read/write locks can). X force-deletes it."
	case !x.Ephemeral:
		return label + " is a PERSISTENT node: no session could react to a revocation request. X force-deletes it."
	}
	return label + " is no lock node: it cannot be revoked. X force-deletes it."
}

// mayTake reports whether a take can start now, saying why not in the
// status line.
func (p *LockPane) mayTake() bool {
	switch {
	case p.readOnly:
		p.setNote(common.LevelWarn, readOnlyLockNote)
	case p.client == nil:
		p.setNote(common.LevelErr, "Not connected.")
	case p.act.taking != nil:
		p.setNote(common.LevelWarn, "Already waiting for "+p.act.taking.path+": press u to stop waiting first.")
	case p.act.holding():
		p.setNote(common.LevelWarn, "We already hold "+p.act.held.Path+": press u to release it first.")
	default:
		return true
	}
	return false
}

// startTake opens the take dialog for the lock under the cursor.
func (p *LockPane) startTake(cursorPath string, onLock bool) tea.Cmd {
	if !p.mayTake() {
		return nil
	}
	target := cursorPath
	if target == "" || target == "/" {
		target = "/locks/"
	}
	existing := onLock && p.have && cursorPath == p.path
	d := dialog.NewTake(p.st, p.keys, target, p.queue.Kind, existing, p.planTake)
	p.open(d)
	return d.Init()
}

// planTake starts the read that plans a take for the take dialog.
func (p *LockPane) planTake(lp string, o lockops.TakeOptions) (uint64, tea.Cmd) {
	if p.client == nil {
		return 0, nil
	}
	p.act.seq++
	return p.act.seq, planTakeCmd(p.client, p.act.seq, lp, o)
}

// HandleAction acts on what a lock dialog asked; ok is false for an
// action that is not a lock dialog's.
func (p *LockPane) HandleAction(act dialog.Action) (cmd tea.Cmd, ok bool) {
	switch a := act.(type) {
	case dialog.LockCancelled:
		p.setNote(common.LevelInfo, a.Note)
	case dialog.Take:
		cmd = p.beginTake(a.Path, a.Opts)
		if a.Why != "" && p.act.taking != nil {
			p.setNote(common.LevelInfo, common.Sentence(a.Why)+".")
		}
	case dialog.Rejoin:
		cmd = p.beginTake(a.Path, a.Opts)
	case dialog.RejoinDeclined:
		p.setNote(common.LevelInfo, "Not rejoining "+a.Path+"; t takes a lock again.")
	case dialog.ReleaseAndQuit:
		p.act.quitting = true
		cmd = p.release(true)
	case dialog.StayHolding:
		p.setNote(common.LevelInfo, "Still holding "+p.act.held.Path+".")
	case dialog.Revoke:
		p.act.busy = "Asking " + a.Label + " to let go (writing __REVOKE__)…"
		cmd = revokeCmd(p.client, a.Node, a.Label)
	case dialog.Evict:
		p.act.busy = "Force-deleting " + a.Label + "…"
		cmd = evictCmd(p.client, a.Preview, a.Label, p.NodeRefs(a.Preview.NextHolders))
	case dialog.EvictUnreadable:
		p.setNote(common.LevelErr, "Could not read "+common.LastElem(a.Node)+": "+a.Err.Error())
		cmd = p.Reload()
	default:
		return nil, false
	}
	return cmd, true
}

// beginTake starts waiting for lp with opts (a rejoin: the take dialog's
// choices again).
func (p *LockPane) beginTake(lp string, opts lockops.TakeOptions) tea.Cmd {
	if !p.mayTake() {
		return nil
	}
	p.act.seq++
	ctx, cancel := context.WithCancel(context.Background())
	t := &takeState{id: p.act.seq, path: lp, mode: opts.Mode, cancel: cancel, started: p.clock()}
	p.act.taking = t
	p.note = common.Status{}
	progress := make(chan lockops.Progress, 16)
	return tea.Batch(
		takeCmd(ctx, p.client, t.id, lp, opts, progress),
		listenTakeProgress(progress, t.id),
		p.spinner.Tick,
	)
}

// release lets go of our lock, or stops waiting for one.
func (p *LockPane) release(quit bool) tea.Cmd {
	if t := p.act.taking; t != nil {
		t.cancel()
		p.setNote(common.LevelInfo, "Stopping the wait for "+t.path+" (our node is deleted)…")
		if quit {
			return tea.Quit
		}
		return nil
	}
	h := p.act.held
	if h == nil || p.act.holdState == lockops.StateReleased {
		if quit {
			return tea.Quit
		}
		p.setNote(common.LevelInfo, "We hold no lock. t takes the lock under the cursor.")
		return nil
	}
	p.act.busy = "Releasing " + h.Path + "…"
	return releaseCmd(h, quit)
}

// updateActions handles the results of lock actions.
func (p *LockPane) updateActions(msg tea.Msg) tea.Cmd {
	a := &p.act
	switch msg := msg.(type) {
	case takeProgressMsg:
		if a.taking == nil || a.taking.id != msg.id {
			return nil
		}
		a.taking.progress = msg.p
		var cmd tea.Cmd
		if !a.taking.gone && msg.p.Path != "" {
			a.taking.gone = true
			lp := msg.p.Path
			cmd = func() tea.Msg { return lockGotoMsg{path: lp} }
		}
		return tea.Batch(cmd, p.Reload())
	case takeDoneMsg:
		if a.taking == nil || a.taking.id != msg.id {
			if msg.held != nil { // a take we stopped caring about: let go
				return releaseCmd(msg.held, false)
			}
			return nil
		}
		t := a.taking
		a.taking = nil
		if msg.err != nil {
			switch {
			case errors.Is(msg.err, context.Canceled):
				p.setNote(common.LevelInfo, "Stopped waiting for "+t.path+"; our node was deleted.")
			case errors.Is(msg.err, zkview.ErrReadOnly):
				p.setNote(common.LevelWarn, readOnlyLockNote)
			case errors.Is(msg.err, lockops.ErrLost):
				// The session ended (or our node went) while we waited: the
				// place is gone for good; offer to queue again.
				p.setNote(common.LevelErr, "Lost our place in the queue of "+t.path+".")
				p.open(dialog.NewRejoinOffer(p.st, p.keys, t.path, msg.err.Error(), msg.opts))
			default:
				p.setNote(common.LevelErr, "Could not take "+t.path+": "+msg.err.Error())
			}
			return p.Reload()
		}
		a.held, a.holdState, a.holdReason, a.revokeAsked = msg.held, lockops.StateHeld, "", false
		a.holdDeadline = time.Time{}
		p.setNote(common.LevelOK, fmt.Sprintf("We hold %s (%s). u releases it.", msg.held.Path, msg.held.Mode))
		var gotoLock tea.Cmd
		if !t.gone { // taken at once: its progress report may come after this
			lp := msg.held.Path
			gotoLock = func() tea.Msg { return lockGotoMsg{path: lp} }
		}
		return tea.Batch(gotoLock, listenHold(msg.held, msg.changes), p.Reload())
	case holdTickMsg:
		if msg.held != a.held || a.holdState != lockops.StateSuspended {
			return nil
		}
		p.now = msg.at
		return holdTick(msg.held)
	case holdChangeMsg:
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
		if c.State == lockops.StateHeld || c.State == lockops.StateSuspended {
			a.holdDeadline = c.Deadline
		}
		if c.RevokeRequested {
			a.revokeAsked = true
			p.setNote(common.LevelWarn, "Someone asked for "+msg.held.Path+" (a revocation request): press u to release it.")
		}
		if c.State != a.holdState {
			a.holdState, a.holdReason = c.State, c.Reason
			switch c.State {
			case lockops.StateSuspended:
				p.setNote(common.LevelWarn, "SUSPENDED: "+c.Reason)
				cmd = tea.Batch(cmd, holdTick(msg.held))
			case lockops.StateLost:
				p.setNote(common.LevelErr, "LOST: "+c.Reason)
				p.open(dialog.NewLost(p.st, p.keys, msg.held.Path, c.Reason, c.WatchingForReturn))
			case lockops.StateHeld:
				p.setNote(common.LevelOK, "Reconnected on the same session: we still hold "+msg.held.Path+".")
			}
		}
		return cmd
	case releaseDoneMsg:
		a.busy = ""
		if msg.held == a.held {
			a.held = nil
			a.holdState = lockops.StateReleased
		}
		if msg.quit {
			return tea.Quit
		}
		if msg.err != nil {
			if errors.Is(msg.err, lockops.ErrLost) {
				p.setNote(common.LevelWarn, "Nothing to release: "+msg.err.Error())
			} else {
				p.setNote(common.LevelErr, "Release failed: "+msg.err.Error())
				a.held, a.holdState = msg.held, msg.held.State()
			}
			return p.Reload()
		}
		p.setNote(common.LevelOK, "Released "+msg.held.Path+".")
		return p.Reload()
	case revokeDoneMsg:
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
		return p.Reload()
	case evictDoneMsg:
		a.busy = ""
		var changed *lockops.ChangedError
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
		return p.Reload()
	}
	return nil
}

// NodeRefs names nodes of the shown queue for a message: "W1 (0000000004)",
// or a shortened name when the node is not in the queue.
func (p *LockPane) NodeRefs(ns []string) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		name := common.LastElem(n)
		l := p.labels[n]
		if l == "" {
			out[i] = common.ShortName(lockops.ShortName(name), 24)
			continue
		}
		seq := name
		if len(seq) > 10 {
			seq = seq[len(seq)-10:]
		}
		out[i] = l + " (" + seq + ")"
	}
	return out
}

// takeCmd runs lockops.Take (blocking until the lock is ours, ctx ends or
// it fails) and reports where we stand through progress.
func takeCmd(ctx context.Context, c *zkview.Client, id uint64, lockPath string, o lockops.TakeOptions, progress chan lockops.Progress) tea.Cmd {
	return func() tea.Msg {
		o.Progress = func(pr lockops.Progress) {
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
		h, err := lockops.Take(ctx, c, lockPath, o)
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
func planTakeCmd(c *zkview.Client, id uint64, lockPath string, o lockops.TakeOptions) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		plan, err := lockops.PlanTake(ctx, c, lockPath, o)
		return dialog.TakePlanMsg{ID: id, Plan: plan, Err: err}
	}
}

// listenTakeProgress delivers the take's progress reports one at a time.
func listenTakeProgress(ch <-chan lockops.Progress, id uint64) tea.Cmd {
	return func() tea.Msg {
		pr, ok := <-ch
		if !ok {
			return nil
		}
		return takeProgressMsg{id: id, p: pr}
	}
}

// listenHold delivers the held lock's state changes one at a time.
func listenHold(h *lockops.Held, ch <-chan lockops.HoldChange) tea.Cmd {
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
func holdTick(h *lockops.Held) tea.Cmd {
	return tea.Tick(holdTickEvery, func(t time.Time) tea.Msg { return holdTickMsg{held: h, at: t} })
}

func releaseCmd(h *lockops.Held, quit bool) tea.Cmd {
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
		res, err := lockops.Revoke(ctx, c, node, dialog.RevokeWait)
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
		pv, err := lockops.PreviewEvict(ctx, c, node, lockops.EvictOptions{})
		return dialog.EvictPreviewMsg{ID: id, Node: node, Preview: pv, Err: err}
	}
}

// evictCmd deletes pv's node if it is still the one shown; next names the
// nodes that get the lock then (for the message).
func evictCmd(c *zkview.Client, pv *lockops.EvictPreview, label string, next []string) tea.Cmd {
	node, want := pv.Node, pv.Expect
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		err := lockops.Evict(ctx, c, node, want, lockops.EvictOptions{})
		return evictDoneMsg{node: node, label: label, next: next, err: err}
	}
}
