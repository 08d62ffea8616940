package dialog

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// TakeModes and TakeRecipes are the choices of the take dialog; a nil
// library is "auto": decided by take.PlanTake, or refused.
var (
	TakeModes   = []lockops.Mode{lockops.ModeExclusive, lockops.ModeRead, lockops.ModeWrite}
	TakeRecipes = append([]*lockops.Library{nil}, lockops.TakeLibraries()...)
)

// Take dialog fields, in tab order.
const (
	TakeFieldPath = iota
	TakeFieldMode
	TakeFieldRecipe
	TakeFieldNote
	takeFields
)

// Planner starts the read that plans a take of path with o (see
// take.PlanTake); it returns the request id and the command, or a nil
// command when no plan can be asked for (not connected).
type Planner func(path string, o take.Options) (uint64, tea.Cmd)

// TakeLock joins (or creates) a lock's queue as a real contender: path,
// mode, recipe and note, with the plan for those choices shown before ⏎.
type TakeLock struct {
	lockBase
	path, note   textinput.Model
	target       prefill // the path the dialog opened on
	mode, recipe int
	field        int
	// The lock under the cursor, when it is one.
	existingKind  lockops.Kind
	existingQueue bool
	planner       Planner
	// The plan for the choices shown (read in a command): planFor is the
	// choices it was made for, planErr the refusal's reason; submitting
	// is set when ⏎ waits for it.
	plan       *take.Plan
	planErr    string
	planFor    string
	planID     uint64
	submitting bool
}

// NewTake opens the take dialog on target; existing is the kind of the
// lock shown there (ok false: not a lock directory shown).
func NewTake(st *themes.Styles, keys common.LockKeyMap, target string, existing lockops.Kind, ok bool, planner Planner) *TakeLock {
	d := &TakeLock{lockBase: lockBase{st: st, keys: keys}, path: newLockInput("/path/of/lock"),
		note: newLockInput("why (written into the node's data)"), planner: planner}
	d.target = newPrefill(target)
	d.path.SetValue(d.target.shown)
	d.path.CursorEnd()
	if ok {
		d.existingQueue, d.existingKind = true, existing
		switch existing {
		case lockops.KindCuratorRW, lockops.KindKazooRW:
			d.mode = 2 // write
		}
		d.field = TakeFieldMode
	}
	return d
}

// ID implements [Dialog].
func (d *TakeLock) ID() string { return "take" }

// Init focuses the first field and asks for the plan.
func (d *TakeLock) Init() tea.Cmd { return tea.Batch(d.focus(), d.requestPlan()) }

// Field is the field with the focus (TakeFieldPath, …).
func (d *TakeLock) Field() int { return d.field }

// Mode is the mode chosen.
func (d *TakeLock) Mode() lockops.Mode { return TakeModes[d.mode] }

// Recipe is the library chosen (nil: auto).
func (d *TakeLock) Recipe() *lockops.Library { return TakeRecipes[d.recipe] }

// ModeNames are the modes offered, in order.
func (d *TakeLock) ModeNames() []string { return takeModeNames(d.modeChoices()) }

// choices are the dialog's path, options and their key (what a plan was
// made for).
func (d *TakeLock) choices() (string, take.Options, string) {
	lp := path.Clean(strings.TrimSpace(d.target.value(d.path.Value())))
	o := take.Options{Library: TakeRecipes[d.recipe], Mode: TakeModes[d.mode], Note: strings.TrimSpace(d.note.Value())}
	return lp, o, fmt.Sprintf("%s|%s|%d", lp, o.Mode, d.recipe)
}

// requestPlan asks how the choices would take the lock, unless that is
// already known or the path is not one.
func (d *TakeLock) requestPlan() tea.Cmd {
	lp, o, k := d.choices()
	if k == d.planFor || !strings.HasPrefix(lp, "/") || lp == "/" {
		return nil
	}
	id, cmd := d.planner(lp, o)
	if cmd == nil {
		return nil
	}
	d.plan, d.planErr, d.planFor, d.planID = nil, "", k, id
	return cmd
}

// modeChoices lists the indices into TakeModes offered: on an existing
// read/write lock read and write, on an existing mutex only exclusive
// (joining in another mode would break its library's rules), otherwise
// all.
func (d *TakeLock) modeChoices() []int {
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

// focus moves the keyboard focus to the current field.
func (d *TakeLock) focus() tea.Cmd {
	d.path.Blur()
	d.note.Blur()
	switch d.field {
	case TakeFieldPath:
		return d.path.Focus()
	case TakeFieldNote:
		return d.note.Focus()
	}
	return nil
}

// Update implements [Dialog]: the plan's reply, and keys.
func (d *TakeLock) Update(msg tea.Msg) (Action, tea.Cmd) {
	switch msg := msg.(type) {
	case TakePlanMsg:
		return d.planned(msg)
	case tea.KeyPressMsg:
		return d.key(msg)
	}
	return nil, nil
}

func (d *TakeLock) key(msg tea.KeyPressMsg) (Action, tea.Cmd) {
	k := d.keys
	switch {
	case key.Matches(msg, k.Cancel):
		return d.close(LockCancelled{Note: "Cancelled."}), nil
	case key.Matches(msg, k.NextField):
		d.field = (d.field + 1) % takeFields
		return nil, tea.Batch(d.focus(), d.requestPlan())
	case key.Matches(msg, k.PrevField):
		d.field = (d.field + takeFields - 1) % takeFields
		return nil, tea.Batch(d.focus(), d.requestPlan())
	case key.Matches(msg, k.Confirm):
		return d.confirm()
	}
	var cmd tea.Cmd
	switch d.field {
	case TakeFieldMode, TakeFieldRecipe:
		d.choose(msg)
		d.err = ""
		return nil, d.requestPlan()
	case TakeFieldPath:
		d.path, cmd = d.path.Update(msg)
		d.err = ""
	default:
		d.note, cmd = d.note.Update(msg)
	}
	return nil, cmd
}

// choose moves the mode or recipe chooser with ←/→.
func (d *TakeLock) choose(msg tea.KeyPressMsg) {
	step := 0
	switch {
	case key.Matches(msg, d.keys.ChoosePrev):
		step = -1
	case key.Matches(msg, d.keys.ChooseNext):
		step = 1
	}
	if d.field == TakeFieldMode {
		ch := d.modeChoices()
		at := max(slices.Index(ch, d.mode), 0)
		d.mode = ch[(at+len(ch)+step)%len(ch)]
		return
	}
	d.recipe = (d.recipe + len(TakeRecipes) + step) % len(TakeRecipes)
}

// confirm takes the lock as the plan says, once the plan for the choices
// is known; a refusal keeps the dialog open with the reason and, when no
// library could be chosen, the recipe field to pick one.
func (d *TakeLock) confirm() (Action, tea.Cmd) {
	lp := strings.TrimSpace(d.target.value(d.path.Value()))
	switch {
	case !strings.HasPrefix(lp, "/") || path.Clean(lp) == "/":
		d.err = "Give the lock's path: an absolute path below /."
		return nil, nil
	case strings.HasPrefix(path.Clean(lp), "/zookeeper"):
		d.err = "/zookeeper is the server's own tree: pick another path."
		return nil, nil
	}
	if _, _, k := d.choices(); k != d.planFor || d.plan == nil && d.planErr == "" {
		d.submitting = true
		return nil, d.requestPlan()
	}
	if d.planErr != "" {
		d.err = "Not taken: change the path, mode or recipe."
		if TakeRecipes[d.recipe] == nil {
			d.err = "Pick the recipe the applications use with ←/→, then ⏎."
			d.field = TakeFieldRecipe
			return nil, d.focus()
		}
		return nil, nil
	}
	lp, opts, _ := d.choices()
	why := ""
	if d.plan != nil {
		// The plan is what the operator saw: take exactly that.
		opts.Library, opts.Mode, why = d.plan.Library, d.plan.Mode, d.plan.Why
	}
	return d.close(Take{Path: lp, Opts: opts, Why: why}), nil
}

// planned shows the plan, and takes the lock when ⏎ waited for it.
func (d *TakeLock) planned(msg TakePlanMsg) (Action, tea.Cmd) {
	if d.planID != msg.ID {
		return nil, nil
	}
	if msg.Err != nil {
		var r *lockops.Refusal
		if errors.As(msg.Err, &r) {
			d.planErr = r.Reason
			if r.Undecided != "" {
				d.planErr = r.Undecided + "; pick the recipe below, or set default_recipe in the context"
			}
		} else {
			d.planErr = msg.Err.Error()
		}
	} else {
		plan := msg.Plan
		d.plan = &plan
	}
	if !d.submitting {
		return nil, nil
	}
	d.submitting = false
	return d.confirm()
}

// View implements [Dialog].
func (d *TakeLock) View(w int) string {
	st, inner := d.st, w-4
	var body []string
	if d.existingQueue {
		body = wrapped(st.Muted, fmt.Sprintf("Join the queue of this %s as a real contender, in its library's format.", d.existingKind), inner)
	} else {
		body = wrapped(st.Muted, "Join (or create) the lock at this path as a real contender.", inner)
	}
	label := func(i int, name string) string {
		if d.field == i {
			return st.Prompt.Render(fmt.Sprintf("%-8s", name))
		}
		return st.Key.Render(fmt.Sprintf("%-8s", name))
	}
	modes := d.modeChoices()
	d.path.SetWidth(max(inner-10, 10)) // the label and the cursor take 10
	d.note.SetWidth(max(inner-10, 10))
	body = append(body, "")
	fields := len(body) // from here on stays in view (frame)
	body = append(body,
		label(TakeFieldPath, "path")+" "+d.path.View(),
		label(TakeFieldMode, "mode")+" "+choices(st, takeModeNames(modes), max(slices.Index(modes, d.mode), 0)),
		label(TakeFieldRecipe, "recipe")+" "+choices(st, takeRecipeNames(), d.recipe),
		label(TakeFieldNote, "note")+" "+d.note.View(),
		"")
	body = append(body, d.planLines(inner)...)
	body = append(body, st.Muted.Render("Waits until the lock is ours; u stops waiting."), "",
		d.hint("⏎", "take")+"  "+d.hint("tab", "next field")+"  "+d.hint("←/→", "choose")+"  "+d.hint("esc", "cancel"))
	return d.lockFrame(w, "Take a lock", body, len(body)-fields)
}

// planLines say what the choices would take, or why not.
func (d *TakeLock) planLines(inner int) []string {
	st := d.st
	switch {
	case d.planErr != "":
		end := "." // a reason may end in a question ("did you mean …?")
		if strings.HasSuffix(d.planErr, "?") {
			end = ""
		}
		return wrapped(st.Error, "Refused: "+d.planErr+end, inner)
	case d.plan != nil && d.plan.Why != "":
		return wrapped(st.Base, fmt.Sprintf("Takes a %s: %s.", d.plan.Kind, d.plan.Why), inner)
	case d.plan != nil:
		return wrapped(st.Base, fmt.Sprintf("Takes a %s, in %s's format.", d.plan.Kind, d.plan.Library), inner)
	}
	return wrapped(st.Muted, "Looking at the lock and the locks next to it…", inner)
}

// choices draws a one-line chooser: the selected name in brackets.
func choices(st *themes.Styles, names []string, sel int) string {
	parts := make([]string, len(names))
	for i, n := range names {
		if i == sel {
			parts[i] = st.TabActive.Render("[" + n + "]")
		} else {
			parts[i] = st.Tab.Render(" " + n + " ")
		}
	}
	return strings.Join(parts, "")
}

// takeModeNames names the modes at the given indices of TakeModes.
func takeModeNames(idx []int) []string {
	out := make([]string, len(idx))
	for i, m := range idx {
		out[i] = string(TakeModes[m])
	}
	return out
}

func takeRecipeNames() []string {
	out := make([]string, len(TakeRecipes))
	for i, r := range TakeRecipes {
		out[i] = "auto"
		if r != nil {
			out[i] = r.Name
		}
	}
	return out
}
