package lockpane

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
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

	held        *take.Held
	holdState   hold.State
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
	progress take.Progress
	started  time.Time
	gone     bool // GotoMsg sent
}

func (a *lockActions) waiting() bool { return a.taking != nil }

// holding reports whether we hold a lock that is not lost.
func (a *lockActions) holding() bool {
	return a.held != nil && (a.holdState == hold.StateHeld || a.holdState == hold.StateSuspended)
}

// isOurs reports whether node is the node of our take or our lock.
func (a *lockActions) isOurs(node string) bool {
	if node == "" {
		return false
	}
	if a.held != nil && a.held.Node == node && a.holdState != hold.StateReleased {
		return true
	}
	return a.taking != nil && a.taking.progress.Node == node
}

// Messages of the lock actions.
type (
	takeProgressMsg struct {
		id uint64
		p  take.Progress
	}
	takeDoneMsg struct {
		id      uint64
		path    string
		opts    take.Options // as asked (to rejoin with)
		held    *take.Held
		changes <-chan hold.Change
		err     error
	}
	// holdTickMsg moves the SUSPENDED countdown on.
	holdTickMsg struct {
		held *take.Held
		at   time.Time
	}
	holdChangeMsg struct {
		held *take.Held
		ch   hold.Change
		ok   bool
		next <-chan hold.Change
	}
	releaseDoneMsg struct {
		held *take.Held
		err  error
		quit bool
	}
	revokeDoneMsg struct {
		node, label string
		res         evict.RevokeResult
		err         error
	}
	evictDoneMsg struct {
		node, label string
		next        []string
		err         error
	}
	// GotoMsg asks the root model to put the cursor on a lock
	// directory (our take's, once its node exists).
	GotoMsg struct{ Path string }
)

// Modal reports whether a lock dialog the pane opened is still open (the
// overlay sends it the keys while it is in front).
func (p *Model) Modal() bool { return p.dialogID != "" && p.dialogs.Has(p.dialogID) }

// open shows d in front, in place of the lock dialog the pane opened
// before (one lock dialog at a time).
func (p *Model) open(d dialog.Dialog) {
	if p.dialogID != "" {
		p.dialogs.Close(p.dialogID)
	}
	p.dialogs.Open(d)
	p.dialogID = d.ID()
}

// Held is the lock we hold or held last (nil when none).
func (p *Model) Held() *take.Held { return p.act.held }

// Holding reports whether we hold a lock (held or suspended): quitting
// should ask first ([Model.ConfirmQuit]).
func (p *Model) Holding() bool { return p.act.holding() || p.redis.holding() }

// ConfirmQuit opens the "you hold a lock" dialog; its answer releases the
// lock and quits, or stays.
func (p *Model) ConfirmQuit() tea.Cmd {
	if p.redis.holding() {
		return p.confirmQuitRedis() // redis_results.go
	}
	p.open(dialog.NewQuitHolding(p.st, p.keys, p.act.held, p))
	return nil
}

// Close stops a take in progress (its node is deleted); the program is
// ending.
func (p *Model) Close() {
	if t := p.act.taking; t != nil && t.cancel != nil {
		t.cancel()
	}
	if t := p.redis.taking; t != nil {
		t.cancel()
	}
}

// setNote shows a one-line result in the pane's footer, about the lock
// shown (see noteAbout).
func (p *Model) setNote(level common.Level, text string) { p.noteAbout(level, text, p.path) }

// noteAbout shows a one-line note about the lock at path: it goes when
// the pane shows another lock, after a few seconds (common.InfoFor) when
// informational, else with the next key ([Model.KeyPressed]).
func (p *Model) noteAbout(level common.Level, text, path string) {
	p.note = common.Status{Text: printable.String(text), Level: level, At: p.clock(), About: path}
}

// KeyPressed drops a warning or error note: the operator has moved on.
// The root calls it before handling a key (whose own note follows).
func (p *Model) KeyPressed() {
	if p.note.Sticky() {
		p.note = common.Status{}
	}
}

// ActionKey handles a lock action key pressed anywhere in the tree or the
// lock pane: cursorPath is the node under the tree cursor and onLock says
// whether it is the lock directory the pane shows. It reports whether the
// key was a lock action.
func (p *Model) ActionKey(msg tea.KeyPressMsg, cursorPath string, onLock bool) (tea.Cmd, bool) {
	if key.Matches(msg, p.keys.Problems) && onLock && p.have && cursorPath == p.path {
		return p.showProblems(), true
	}
	if p.dbNote != "" {
		return p.dbActionKey(msg)
	} else if p.loader != nil {
		return p.redisActionKey(msg, cursorPath, onLock) // Redis locks (redis_actions.go)
	}
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
			if why := revokeRefusal(p.queue.Kind, x, p.label(x.Node)); why != "" {
				p.setNote(common.LevelWarn, why)
				return nil, true
			}
			p.open(dialog.NewRevoke(p.st, p.keys, x, p.label(x.Node)))
			return nil, true
		}
		if !lockops.Recognised(p.queue.Kind) {
			p.setNote(common.LevelWarn, "zkscope does not recognise this lock's recipe, so it will not force-delete its nodes here: use `zkscope evict --any-node` if you must.")
			return nil, true
		}
		if x.WatcherOnly {
			p.setNote(common.LevelWarn, "this waiter owns no node (it only watches the lock node): there is nothing of its own to delete; its session ends when its client stops")
			return nil, true
		}
		p.act.seq++
		id := p.act.seq
		d := dialog.NewForceDelete(p.st, p.keys, x, p.label(x.Node), id, p)
		p.open(d)
		return tea.Batch(d.Init(), previewEvictCmd(p.client, id, x.Node)), true
	}
	return nil, false
}

// showProblems opens the selected node's problems, and the lock's own, in
// full (the footer shows the start of the first only).
func (p *Model) showProblems() tea.Cmd {
	x, selected := p.selected()
	title, node := "Problems of this lock", ""
	if selected {
		title, node = "Problems of "+p.label(x.Node), x.Node
	}
	var items []dialog.ProblemText
	for _, pr := range p.queue.Problems {
		mine := selected && (pr.Node == x.Node || p.loader != nil && pr.Node == x.Name)
		if mine || pr.Node == "" || pr.Node == p.path {
			badge := p.badge(pr.Kind)
			if p.loader != nil {
				badge = p.redisBadge(pr.Kind)
			}
			items = append(items, dialog.ProblemText{Badge: badge, Detail: pr.Detail})
		}
	}
	p.open(dialog.NewProblems(p.st, p.keys, title, node, items))
	return nil
}

// revokeRefusal says in one status line why R does nothing on x (labelled
// label) in a lock of kind k, "" when x can be asked to let go.
func revokeRefusal(k lockops.Kind, x lockops.Participant, label string) string {
	switch {
	case !lockops.Recognised(k):
		return "zkscope does not recognise this lock's recipe: only the holder of a Curator lock can be revoked."
	case evict.NotRevocable(k, x) == "":
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
func (p *Model) mayTake() bool {
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
func (p *Model) startTake(cursorPath string, onLock bool) tea.Cmd {
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
func (p *Model) planTake(lp string, o take.Options) (uint64, tea.Cmd) {
	if p.client == nil {
		return 0, nil
	}
	p.act.seq++
	return p.act.seq, planTakeCmd(p.client, p.act.seq, lp, o)
}

// HandleAction acts on what a lock dialog asked; ok is false for an
// action that is not a lock dialog's.
func (p *Model) HandleAction(act dialog.Action) (cmd tea.Cmd, ok bool) {
	if cmd, ok := p.handleRedisAction(act); ok {
		return cmd, true // redis_actions.go
	}
	switch a := act.(type) {
	case dialog.LockCancelled:
		p.setNote(common.LevelInfo, a.Note)
	case dialog.Take:
		cmd = p.beginTake(a.Path, a.Opts)
		if a.Why != "" && p.act.taking != nil {
			p.noteAbout(common.LevelInfo, common.Sentence(a.Why)+".", a.Path) // the cursor goes there
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
		cmd = evictCmd(p.client, a.Preview, a.Label, p.NodeRefs(a.Preview.NextHolders), a.ForceLeader)
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
func (p *Model) beginTake(lp string, opts take.Options) tea.Cmd {
	if !p.mayTake() {
		return nil
	}
	p.act.seq++
	ctx, cancel := context.WithCancel(context.Background())
	t := &takeState{id: p.act.seq, path: lp, mode: opts.Mode, cancel: cancel, started: p.clock()}
	p.act.taking = t
	p.note = common.Status{}
	progress := make(chan take.Progress, 16)
	return tea.Batch(
		takeCmd(ctx, p.client, t.id, lp, opts, progress),
		listenTakeProgress(progress, t.id),
		p.spinner.Tick,
	)
}

// release lets go of our lock, or stops waiting for one.
func (p *Model) release(quit bool) tea.Cmd {
	if t := p.act.taking; t != nil {
		t.cancel()
		p.setNote(common.LevelInfo, "Stopping the wait for "+t.path+" (our node is deleted)…")
		if quit {
			return tea.Quit
		}
		return nil
	}
	h := p.act.held
	if h == nil || p.act.holdState == hold.StateReleased {
		if quit {
			return tea.Quit
		}
		p.setNote(common.LevelInfo, "We hold no lock. t takes the lock under the cursor.")
		return nil
	}
	p.act.busy = "Releasing " + h.Path + "…"
	return releaseCmd(h, quit)
}
