package dialog

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// QuitHolding asks before quitting while we hold a lock: yes releases it
// and quits; ctrl+c quits at once (closing the session deletes our node).
type QuitHolding struct {
	lockBase
	held *take.Held
	view LockView
}

// NewQuitHolding asks about quitting while holding held.
func NewQuitHolding(st *themes.Styles, keys common.LockKeyMap, held *take.Held, view LockView) *QuitHolding {
	return &QuitHolding{lockBase: lockBase{st: st, keys: keys}, held: held, view: view}
}

// ID implements [Dialog].
func (d *QuitHolding) ID() string { return "quit-holding" }

// Update implements [Dialog].
func (d *QuitHolding) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	k := d.keys
	switch {
	case key.Matches(km, k.Confirm, k.Yes):
		return d.close(ReleaseAndQuit{}), nil
	case key.Matches(km, k.ForceQuit):
		return nil, tea.Quit
	case key.Matches(km, k.Cancel, k.No):
		return d.close(StayHolding{}), nil
	}
	return nil, nil
}

// View implements [Dialog].
func (d *QuitHolding) View(w int) string {
	st, h, inner := d.st, d.held, w-4
	body := wrapped(st.Base, fmt.Sprintf("We hold %s (%s) for %s.", h.Path, h.Mode, common.FormatAge(d.view.Now().Sub(h.Acquired))), inner)
	body = append(body, wrapped(st.Muted, "Quitting releases it (our node is deleted) and the next waiter gets the lock.", inner)...)
	body = append(body, "", d.hint("y/⏎", "release and quit")+"   "+d.hint("n/esc", "stay"))
	return d.lockFrame(w, "Quit while holding a lock?", body, 2)
}

// Lost tells that a lock we held is lost; any of ⏎, esc, space or q
// closes it.
type Lost struct {
	lockBase
	path, reason string
	watching     bool
}

// NewLost tells that our lock at path is lost, and why; watching says the
// session may come back (our node is then deleted).
func NewLost(st *themes.Styles, keys common.LockKeyMap, path, reason string, watching bool) *Lost {
	return &Lost{lockBase: lockBase{st: st, keys: keys}, path: path, reason: reason, watching: watching}
}

// ID implements [Dialog].
func (d *Lost) ID() string { return "lost" }

// Update implements [Dialog].
func (d *Lost) Update(msg tea.Msg) (Action, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok && key.Matches(km, d.keys.Dismiss) {
		d.done = true
	}
	return nil, nil
}

// View implements [Dialog].
func (d *Lost) View(w int) string {
	st, inner := d.st, w-4
	body := wrapped(st.Error, "We no longer hold "+d.path+".", inner)
	body = append(body, wrapped(st.Base, d.reason, inner)...)
	body = append(body, wrapped(st.Muted, "Whatever you were doing under this lock is no longer protected: another client may hold it now.", inner)...)
	if d.watching {
		body = append(body, wrapped(st.Muted, "If our session comes back, zkscope deletes our node at once: what was declared lost stays lost.", inner)...)
	}
	body = append(body, "", d.hint("⏎", "understood"))
	return d.lockFrame(w, "Lock LOST", body, 2)
}

// RejoinOffer offers to queue again for a lock whose place in the queue
// was lost, with the same options.
type RejoinOffer struct {
	lockBase
	path, reason string
	opts         take.Options
}

// NewRejoinOffer offers to take path again with opts after reason.
func NewRejoinOffer(st *themes.Styles, keys common.LockKeyMap, path, reason string, opts take.Options) *RejoinOffer {
	return &RejoinOffer{lockBase: lockBase{st: st, keys: keys}, path: path, reason: reason, opts: opts}
}

// ID implements [Dialog].
func (d *RejoinOffer) ID() string { return "rejoin" }

// Update implements [Dialog].
func (d *RejoinOffer) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case key.Matches(km, d.keys.Confirm, d.keys.Yes):
		return d.close(Rejoin{Path: d.path, Opts: d.opts}), nil
	case key.Matches(km, d.keys.Cancel, d.keys.No):
		return d.close(RejoinDeclined{Path: d.path}), nil
	}
	return nil, nil
}

// View implements [Dialog].
func (d *RejoinOffer) View(w int) string {
	st, inner := d.st, w-4
	body := wrapped(st.Error, "We were waiting for "+d.path+" and lost our place.", inner)
	body = append(body, wrapped(st.Base, d.reason, inner)...)
	body = append(body, wrapped(st.Muted, "Rejoining takes the lock again with the same options, at the end of the queue.", inner)...)
	body = append(body, "", d.hint("y/⏎", "rejoin")+"   "+d.hint("n/esc", "not now"))
	return d.lockFrame(w, "Place in the queue lost", body, 2)
}

// RevokeHolder asks before writing a revocation request to a holder's
// node.
type RevokeHolder struct {
	lockBase
	target lockops.Participant
	label  string
}

// NewRevoke asks about revoking target (labelled label, "H1").
func NewRevoke(st *themes.Styles, keys common.LockKeyMap, target lockops.Participant, label string) *RevokeHolder {
	return &RevokeHolder{lockBase: lockBase{st: st, keys: keys}, target: target, label: label}
}

// ID implements [Dialog].
func (d *RevokeHolder) ID() string { return "revoke" }

// Update implements [Dialog].
func (d *RevokeHolder) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case key.Matches(km, d.keys.Confirm, d.keys.Yes):
		return d.close(Revoke{Node: d.target.Node, Label: d.label}), nil
	case key.Matches(km, d.keys.Cancel, d.keys.No):
		return d.close(LockCancelled{Note: "Cancelled; nothing was changed."}), nil
	}
	return nil, nil
}

// View implements [Dialog].
func (d *RevokeHolder) View(w int) string {
	st, x, inner := d.st, d.target, w-4
	body := []string{d.field("node", printable.String(x.Node)), d.field("owner", lockops.FormatSession(x.Session)+clientSuffix(x.Client))}
	if len(x.Data) > 0 {
		body = append(body, d.field("data", common.DataSummary(x.Data)))
	}
	body = append(body, "")
	body = append(body, wrapped(st.Base, "Write __REVOKE__ to the holder's node (Curator's revocation request) and wait "+RevokeWait.String()+" for it to let go.", inner)...)
	body = append(body, wrapped(st.Muted, "Only holders that made their lock revocable (Curator makeRevocable, zkscope lock --revocable) react; others keep the lock.", inner)...)
	body = append(body, "", d.hint("y/⏎", "revoke")+"   "+d.hint("n/esc", "cancel"))
	return d.lockFrame(w, "Revoke "+d.label, body, 2)
}
