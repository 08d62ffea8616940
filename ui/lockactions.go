package ui

import (
	"context"
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"path"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// Lock actions: take (join a queue as a real contender), release, revoke
// (Curator revocable locks) and force-delete, each through lockops (audited,
// refused in read-only mode) from a command. Their state lives in the lock
// pane and outlives the directory shown.

// revokeWait is how long a revocation waits for the holder to let go.
const revokeWait = 10 * time.Second

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

	dialog *lockDialog
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

// lockDialogKind is what a lock dialog asks.
type lockDialogKind int

const (
	lockDialogTake lockDialogKind = iota
	lockDialogRevoke
	lockDialogEvict
	lockDialogQuit
	lockDialogLost
	lockDialogRejoin
)

// takeModes and takeRecipes are the choices of the take dialog; a nil
// library is "auto": decided by lockops.PlanTake, or refused.
var (
	takeModes   = []lockops.Mode{lockops.ModeExclusive, lockops.ModeRead, lockops.ModeWrite}
	takeRecipes = append([]*lockops.Library{nil}, lockops.TakeLibraries()...)
)

// Take dialog fields, in tab order.
const (
	takeFieldPath = iota
	takeFieldMode
	takeFieldRecipe
	takeFieldNote
	takeFields
)

// lockDialog is the one open lock dialog.
type lockDialog struct {
	kind lockDialogKind

	// Take.
	path, note    textinput.Model
	mode, recipe  int
	field         int
	existingKind  lockops.Kind
	existingQueue bool
	// The plan for the choices shown (lockops.PlanTake, read in a
	// command): planFor is the choices it was made for, planErr the
	// refusal's reason; submitting is set when ⏎ waits for it.
	plan       *lockops.TakePlan
	planErr    string
	planFor    string
	planID     uint64
	submitting bool

	// Revoke and force-delete.
	target  lockops.Participant
	label   string
	preview *lockops.EvictPreview
	seq     textinput.Model
	id      uint64

	// Lost, and a place in a queue lost (rejoin: take again with opts).
	reason   string
	watching bool // the session may come back: our node is then deleted
	opts     lockops.TakeOptions

	err string
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
	evictPreviewMsg struct {
		id      uint64
		node    string
		preview *lockops.EvictPreview
		err     error
	}
	evictDoneMsg struct {
		node, label string
		next        []string
		err         error
	}
	// takePlanMsg is the take dialog's plan for its choices.
	takePlanMsg struct {
		id   uint64
		plan lockops.TakePlan
		err  error
	}
	// lockGotoMsg asks the root model to put the cursor on a lock
	// directory (our take's, once its node exists).
	lockGotoMsg struct{ path string }
)

// Modal reports whether a lock dialog is open: the root model then sends
// every key to [LockPane.Update].
func (p *LockPane) Modal() bool { return p.act.dialog != nil }

// Holding reports whether we hold a lock (held or suspended): quitting
// should ask first ([LockPane.ConfirmQuit]).
func (p *LockPane) Holding() bool { return p.act.holding() }

// ConfirmQuit opens the "you hold a lock" dialog; its answer releases the
// lock and quits, or stays.
func (p *LockPane) ConfirmQuit() tea.Cmd {
	p.act.dialog = &lockDialog{kind: lockDialogQuit}
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
			p.act.dialog = &lockDialog{kind: lockDialogRevoke, target: x, label: p.labels[x.Node]}
			return nil, true
		}
		if !lockops.Recognised(p.queue.Kind) {
			p.setNote(common.LevelWarn, "zkscope does not recognise this lock's recipe, so it will not force-delete its nodes here: use `zkscope evict --any-node` if you must.")
			return nil, true
		}
		p.act.seq++
		id := p.act.seq
		in := newLockInput("sequence number")
		in.SetWidth(14)
		d := &lockDialog{kind: lockDialogEvict, target: x, label: p.labels[x.Node], id: id, seq: in}
		p.act.dialog = d
		return tea.Batch(d.seq.Focus(), previewEvictCmd(p.client, id, x.Node)), true
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

func newLockInput(placeholder string) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.SetWidth(44)
	return in
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
	d := &lockDialog{kind: lockDialogTake, path: newLockInput("/path/of/lock"), note: newLockInput("why (written into the node's data)")}
	d.path.SetValue(target)
	d.path.CursorEnd()
	if onLock && p.have && cursorPath == p.path {
		d.existingQueue, d.existingKind = true, p.queue.Kind
		switch p.queue.Kind {
		case lockops.KindCuratorRW, lockops.KindKazooRW:
			d.mode = 2 // write
		}
		d.field = takeFieldMode
	}
	p.act.dialog = d
	return tea.Batch(d.focus(), p.planTake(d))
}

// takeChoices are the take dialog's path, options and their key (what a
// plan was made for).
func (d *lockDialog) takeChoices() (string, lockops.TakeOptions, string) {
	lp := path.Clean(strings.TrimSpace(d.path.Value()))
	o := lockops.TakeOptions{Library: takeRecipes[d.recipe], Mode: takeModes[d.mode], Note: strings.TrimSpace(d.note.Value())}
	return lp, o, fmt.Sprintf("%s|%s|%d", lp, o.Mode, d.recipe)
}

// planTake asks, in a command, how the dialog's choices would take the
// lock, unless that is already known or the path is not one.
func (p *LockPane) planTake(d *lockDialog) tea.Cmd {
	lp, o, key := d.takeChoices()
	if key == d.planFor || p.client == nil || !strings.HasPrefix(lp, "/") || lp == "/" {
		return nil
	}
	p.act.seq++
	d.plan, d.planErr, d.planFor, d.planID = nil, "", key, p.act.seq
	return planTakeCmd(p.client, d.planID, lp, o)
}

// modeChoices lists the indices into takeModes the take dialog offers: on
// an existing read/write lock read and write, on an existing mutex only
// exclusive (joining in another mode would break its library's rules),
// otherwise all.
func (d *lockDialog) modeChoices() []int {
	if d.existingQueue {
		switch d.existingKind {
		case lockops.KindCuratorRW, lockops.KindKazooRW, lockops.KindZooKeeperDocsRW:
			return []int{1, 2}
		case lockops.KindCuratorMutex, lockops.KindKazooLock, lockops.KindGoZK, lockops.KindZooKeeperLock:
			return []int{0}
		}
	}
	return []int{0, 1, 2}
}

// focus moves the take dialog's keyboard focus to its current field.
func (d *lockDialog) focus() tea.Cmd {
	d.path.Blur()
	d.note.Blur()
	switch d.field {
	case takeFieldPath:
		return d.path.Focus()
	case takeFieldNote:
		return d.note.Focus()
	}
	return nil
}

// dialogKey handles a key while a lock dialog is open.
func (p *LockPane) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	d := p.act.dialog
	k := p.keys
	switch d.kind {
	case lockDialogLost:
		if key.Matches(msg, k.Dismiss) {
			p.act.dialog = nil
		}
		return nil
	case lockDialogRejoin:
		switch {
		case key.Matches(msg, k.Confirm, k.Yes):
			p.act.dialog = nil
			return p.beginTake(d.label, d.opts)
		case key.Matches(msg, k.Cancel, k.No):
			p.act.dialog = nil
			p.setNote(common.LevelInfo, "Not rejoining "+d.label+"; t takes a lock again.")
		}
		return nil
	case lockDialogQuit:
		switch {
		case key.Matches(msg, k.Confirm, k.Yes):
			p.act.dialog = nil
			p.act.quitting = true
			return p.release(true)
		case key.Matches(msg, k.ForceQuit):
			return tea.Quit
		case key.Matches(msg, k.Cancel, k.No):
			p.act.dialog = nil
			p.setNote(common.LevelInfo, "Still holding "+p.act.held.Path+".")
		}
		return nil
	case lockDialogRevoke:
		switch {
		case key.Matches(msg, k.Confirm, k.Yes):
			p.act.dialog = nil
			p.act.busy = "Asking " + d.label + " to let go (writing __REVOKE__)…"
			return revokeCmd(p.client, d.target.Node, d.label)
		case key.Matches(msg, k.Cancel, k.No):
			p.act.dialog = nil
			p.setNote(common.LevelInfo, "Cancelled; nothing was changed.")
		}
		return nil
	case lockDialogEvict:
		switch {
		case key.Matches(msg, k.Cancel):
			p.act.dialog = nil
			p.setNote(common.LevelInfo, "Cancelled; nothing was deleted.")
			return nil
		case key.Matches(msg, k.Confirm):
			if d.preview == nil {
				return nil
			}
			want := d.preview.SequenceSuffix()
			if strings.TrimSpace(d.seq.Value()) != want {
				d.err = "Type the sequence number " + want + " exactly to confirm."
				return nil
			}
			p.act.dialog = nil
			p.act.busy = "Force-deleting " + d.label + "…"
			return evictCmd(p.client, d.preview, d.label, p.nodeRefs(d.preview.NextHolders))
		}
		var cmd tea.Cmd
		d.seq, cmd = d.seq.Update(msg)
		d.err = ""
		return cmd
	case lockDialogTake:
		return p.takeDialogKey(d, msg)
	}
	return nil
}

func (p *LockPane) takeDialogKey(d *lockDialog, msg tea.KeyPressMsg) tea.Cmd {
	k := p.keys
	switch {
	case key.Matches(msg, k.Cancel):
		p.act.dialog = nil
		p.setNote(common.LevelInfo, "Cancelled.")
		return nil
	case key.Matches(msg, k.NextField):
		d.field = (d.field + 1) % takeFields
		return tea.Batch(d.focus(), p.planTake(d))
	case key.Matches(msg, k.PrevField):
		d.field = (d.field + takeFields - 1) % takeFields
		return tea.Batch(d.focus(), p.planTake(d))
	case key.Matches(msg, k.Confirm):
		return p.confirmTake(d)
	}
	switch d.field {
	case takeFieldMode, takeFieldRecipe:
		step := 0
		switch {
		case key.Matches(msg, k.ChoosePrev):
			step = -1
		case key.Matches(msg, k.ChooseNext):
			step = 1
		}
		if d.field == takeFieldMode {
			ch := d.modeChoices()
			at := max(slices.Index(ch, d.mode), 0)
			d.mode = ch[(at+len(ch)+step)%len(ch)]
		} else {
			d.recipe = (d.recipe + len(takeRecipes) + step) % len(takeRecipes)
		}
		d.err = ""
		return p.planTake(d)
	case takeFieldPath:
		var cmd tea.Cmd
		d.path, cmd = d.path.Update(msg)
		d.err = ""
		return cmd
	default:
		var cmd tea.Cmd
		d.note, cmd = d.note.Update(msg)
		return cmd
	}
}

// confirmTake takes the lock as the dialog's plan says, once the plan for
// its choices is known; a refusal keeps the dialog open with the reason
// and, when no library could be chosen, the recipe field to pick one.
func (p *LockPane) confirmTake(d *lockDialog) tea.Cmd {
	lp := strings.TrimSpace(d.path.Value())
	switch {
	case !strings.HasPrefix(lp, "/") || path.Clean(lp) == "/":
		d.err = "Give the lock's path: an absolute path below /."
		return nil
	case strings.HasPrefix(path.Clean(lp), "/zookeeper"):
		d.err = "/zookeeper is the server's own tree: pick another path."
		return nil
	}
	if _, _, key := d.takeChoices(); key != d.planFor || d.plan == nil && d.planErr == "" {
		d.submitting = true
		return p.planTake(d)
	}
	if d.planErr != "" {
		d.err = "Not taken: change the path, mode or recipe."
		if takeRecipes[d.recipe] == nil {
			d.err = "Pick the recipe the applications use with ←/→, then ⏎."
			d.field = takeFieldRecipe
			return d.focus()
		}
		return nil
	}
	return p.submitTake(d)
}

// takePlanned shows the dialog's plan, and takes the lock when ⏎ waited
// for it.
func (p *LockPane) takePlanned(msg takePlanMsg) tea.Cmd {
	d := p.act.dialog
	if d == nil || d.kind != lockDialogTake || d.planID != msg.id {
		return nil
	}
	if msg.err != nil {
		var r *lockops.Refusal
		if errors.As(msg.err, &r) {
			d.planErr = r.Reason
		} else {
			d.planErr = msg.err.Error()
		}
	} else {
		plan := msg.plan
		d.plan = &plan
	}
	if !d.submitting {
		return nil
	}
	d.submitting = false
	return p.confirmTake(d)
}

func (p *LockPane) submitTake(d *lockDialog) tea.Cmd {
	lp, opts, _ := d.takeChoices()
	why := ""
	if d.plan != nil {
		// The plan is what the operator saw: take exactly that.
		opts.Library, opts.Mode, why = d.plan.Library, d.plan.Mode, d.plan.Why
	}
	p.act.dialog = nil
	cmd := p.beginTake(lp, opts)
	if why != "" && p.act.taking != nil {
		p.setNote(common.LevelInfo, strings.ToUpper(why[:1])+why[1:]+".")
	}
	return cmd
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
	case takePlanMsg:
		return p.takePlanned(msg)
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
				a.dialog = &lockDialog{kind: lockDialogRejoin, label: t.path, reason: msg.err.Error(), opts: msg.opts}
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
				p.act.dialog = &lockDialog{kind: lockDialogLost, reason: c.Reason, label: msg.held.Path, watching: c.WatchingForReturn}
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
			p.setNote(common.LevelWarn, fmt.Sprintf("%s still holds the lock after %s: its client did not make the lock revocable. Force-delete (X) only if its process is stopped.", msg.label, revokeWait))
		}
		return p.Reload()
	case evictPreviewMsg:
		d := a.dialog
		if d == nil || d.kind != lockDialogEvict || d.id != msg.id {
			return nil
		}
		if msg.err != nil {
			a.dialog = nil
			p.setNote(common.LevelErr, "Could not read "+common.LastElem(msg.node)+": "+msg.err.Error())
			return p.Reload()
		}
		d.preview = msg.preview
		return nil
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

// nodeRefs names nodes of the shown queue for a message: "W1 (0000000004)",
// or a shortened name when the node is not in the queue.
func (p *LockPane) nodeRefs(ns []string) []string {
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
		return takePlanMsg{id: id, plan: plan, err: err}
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
		ctx, cancel := context.WithTimeout(context.Background(), revokeWait+fetchTimeout)
		defer cancel()
		res, err := lockops.Revoke(ctx, c, node, revokeWait)
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
		return evictPreviewMsg{id: id, node: node, preview: pv, err: err}
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
