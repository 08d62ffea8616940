package ui

import (
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
)

// bannerLines are the pane's lines about our own take or lock, drawn above
// the queue whatever lock is shown.
func (p *LockPane) bannerLines() []string {
	st := p.st
	a := &p.act
	var out []string
	if t := a.taking; t != nil {
		pr := t.progress
		wait := common.FormatAge(p.now.Sub(t.started))
		switch {
		case pr.Node == "":
			out = append(out, p.spinner.View()+" "+st.Info.Render(fmt.Sprintf("Joining the queue of %s (%s)… %s", t.path, t.mode, wait)))
		case pr.WaitingOn != "":
			// Take reports when our own wait moves; the shown queue (when
			// it is ours) is fresher about everyone ahead of us.
			pos, n, waitingOn := pr.Position+1, pr.QueueLen, pr.WaitingOn
			if i, ok := p.byNode[pr.Node]; ok && pr.Path == p.path {
				pos, n = i+1, len(p.queue.Participants)
				if w := p.queue.Participants[i].Watches; w != "" {
					waitingOn = w
				}
			}
			on := common.LastElem(waitingOn)
			if l, ok := p.labels[waitingOn]; ok && pr.Path == p.path {
				on = l + " " + common.ShortName(lockops.ShortName(on), 24)
			}
			out = append(out, p.spinner.View()+st.Info.Render(fmt.Sprintf("We wait at position %d of %d on %s · %s", pos, n, on, wait)))
			if pr.Path != p.path {
				out = append(out, st.Muted.Render("  in "+pr.Path+" · u stops waiting"))
			} else {
				out = append(out, st.Muted.Render("  u stops waiting (our node is deleted)"))
			}
		default:
			out = append(out, p.spinner.View()+" "+st.Info.Render("Taking "+t.path+"…"))
		}
	}
	if h := a.held; h != nil && a.holdState != lockops.StateReleased {
		since := common.FormatAge(p.now.Sub(h.Acquired))
		where := ""
		if h.Path != p.path {
			where = " " + h.Path
		}
		switch a.holdState {
		case lockops.StateHeld:
			s := st.Success.Render(fmt.Sprintf("● We hold this lock%s (%s) for %s", where, h.Mode, since)) + st.Muted.Render(" · u releases")
			out = append(out, s)
			out = append(out, st.Muted.Render(fmt.Sprintf("  fence %d · session %s", h.Czxid, lockops.FormatSession(h.Session))))
			if a.revokeAsked {
				out = append(out, st.Warning.Render("  Someone asked for it (revocation request)."))
			}
		case lockops.StateSuspended:
			out = append(out, st.BadgeWarn.Render("SUSPENDED")+" "+st.Warning.Render("Disconnected: we may no longer hold"+where+"."))
			if !a.holdDeadline.IsZero() {
				left := max(a.holdDeadline.Sub(p.now), 0)
				out = append(out, "  "+st.Warning.Render(fmt.Sprintf("Treated as LOST in %.1fs", left.Seconds()))+st.Muted.Render(" unless ZooKeeper answers (fence "+fmt.Sprint(h.Czxid)+")"))
			}
			out = append(out, st.Muted.Render("  "+a.holdReason))
		case lockops.StateLost:
			out = append(out, st.BadgeErr.Render("LOST")+" "+st.Error.Render("We no longer hold"+where+"."))
			out = append(out, st.Muted.Render("  "+a.holdReason))
		}
	}
	if a.busy != "" {
		out = append(out, st.Info.Render(a.busy))
	}
	return out
}

// HeaderBadge is a short note of our lock for the header ("" when we
// neither hold nor wait for one): the lock stays visible wherever the
// cursor is.
func (p *LockPane) HeaderBadge() string {
	st := p.st
	a := &p.act
	switch {
	case a.taking != nil:
		return st.StateWarn.Render("waiting for " + a.taking.path)
	case a.held == nil:
		return ""
	case a.holdState == lockops.StateHeld:
		return st.StateOK.Render("holding " + a.held.Path)
	case a.holdState == lockops.StateSuspended && !a.holdDeadline.IsZero():
		left := max(a.holdDeadline.Sub(p.now), 0)
		return st.StateWarn.Render(fmt.Sprintf("lock SUSPENDED %s (lost in %.1fs)", a.held.Path, left.Seconds()))
	case a.holdState == lockops.StateSuspended:
		return st.StateWarn.Render("lock SUSPENDED " + a.held.Path)
	case a.holdState == lockops.StateLost:
		return st.StateErr.Render("lock LOST " + a.held.Path)
	}
	return ""
}

// DialogView draws the open lock dialog as a box w cells wide ("" when no
// dialog is open); the root model centres it over the screen.
func (p *LockPane) DialogView(w int) string {
	d := p.act.dialog
	if d == nil {
		return ""
	}
	st := p.st
	inner := w - 4
	key := func(k, desc string) string { return st.HelpKey.Render(k) + st.HelpDesc.Render(" "+desc) }
	field := func(label, value string) string {
		return st.Key.Render(fmt.Sprintf("%-8s", label)) + " " + value
	}
	var title string
	var body []string
	wrap := func(s lipgloss.Style, text string) {
		for _, l := range strings.Split(ansi.Wordwrap(text, inner, ""), "\n") {
			body = append(body, s.Render(l))
		}
	}
	switch d.kind {
	case lockDialogTake:
		title = "Take a lock"
		if d.existingQueue {
			wrap(st.Muted, fmt.Sprintf("Join the queue of this %s as a real contender, in its library's format.", d.existingKind))
		} else {
			wrap(st.Muted, "Join (or create) the lock at this path as a real contender.")
		}
		body = append(body, "")
		label := func(i int, name string) string {
			if d.field == i {
				return st.Prompt.Render(fmt.Sprintf("%-8s", name))
			}
			return st.Key.Render(fmt.Sprintf("%-8s", name))
		}
		body = append(body, label(takeFieldPath, "path")+" "+d.path.View())
		modes := d.modeChoices()
		body = append(body, label(takeFieldMode, "mode")+" "+choices(st, takeModeNames(modes), max(slices.Index(modes, d.mode), 0)))
		body = append(body, label(takeFieldRecipe, "recipe")+" "+choices(st, takeRecipeNames(), d.recipe))
		body = append(body, label(takeFieldNote, "note")+" "+d.note.View())
		body = append(body, "")
		switch {
		case d.planErr != "":
			wrap(st.Error, "Refused: "+d.planErr+".")
		case d.plan != nil && d.plan.Why != "":
			wrap(st.Base, fmt.Sprintf("Takes a %s: %s.", d.plan.Kind, d.plan.Why))
		case d.plan != nil:
			wrap(st.Base, fmt.Sprintf("Takes a %s, in %s's format.", d.plan.Kind, d.plan.Library))
		default:
			wrap(st.Muted, "Looking at the lock and the locks next to it…")
		}
		body = append(body, st.Muted.Render("Waits until the lock is ours; u stops waiting."), "",
			key("⏎", "take")+"   "+key("tab", "next field")+"   "+key("←/→", "choose")+"   "+key("esc", "cancel"))
	case lockDialogRevoke:
		title = "Revoke " + d.label
		x := d.target
		body = append(body, field("node", x.Node), field("owner", lockops.FormatSession(x.Session)+clientSuffix(x.Client)))
		if len(x.Data) > 0 {
			body = append(body, field("data", common.DataSummary(x.Data)))
		}
		body = append(body, "")
		wrap(st.Base, "Write __REVOKE__ to the holder's node (Curator's revocation request) and wait "+revokeWait.String()+" for it to let go.")
		wrap(st.Muted, "Only holders that made their lock revocable (Curator makeRevocable, zkscope lock --revocable) react; others keep the lock.")
		body = append(body, "", key("y/⏎", "revoke")+"   "+key("n/esc", "cancel"))
	case lockDialogEvict:
		title = "Force-delete " + d.label
		pv := d.preview
		if pv == nil {
			body = append(body, st.Muted.Render("Reading "+common.LastElem(d.target.Node)+"…"), "", key("esc", "cancel"))
			break
		}
		owner := st.Error.Render("PERSISTENT (no session)")
		if pv.Ephemeral {
			owner = "session " + lockops.FormatSession(pv.Session) + clientSuffix(pv.Client)
		}
		role := "waiting"
		if pv.Holding {
			role = st.Warning.Render("HOLDING the lock")
		}
		body = append(body,
			field("node", common.ShortName(common.LastElem(pv.Node), inner-9)),
			field("owner", owner),
			field("data", common.DataSummary(pv.Data)),
			field("role", role+fmt.Sprintf(", for %s", common.FormatAge(pv.HeldFor))),
			field("version", fmt.Sprintf("%d (czxid 0x%x)", pv.Version, pv.Czxid)))
		switch {
		case len(pv.NextHolders) > 0:
			body = append(body, field("next", strings.Join(p.nodeRefs(pv.NextHolders), ", ")+" gets the lock"))
		case pv.Holding:
			body = append(body, field("next", "nobody is waiting: the lock becomes free"))
		default:
			body = append(body, field("next", p.waiterEvictNext(pv.Node)))
		}
		body = append(body, "")
		for _, w := range pv.Warnings {
			wrap(st.Warning, "⚠ "+w)
		}
		body = append(body, "",
			st.Prompt.Render("Type "+pv.SequenceSuffix()+" to confirm: ")+d.seq.View(),
			"", key("⏎", "delete (only if unchanged)")+"   "+key("esc", "cancel"))
	case lockDialogQuit:
		title = "Quit while holding a lock?"
		h := p.act.held
		wrap(st.Base, fmt.Sprintf("We hold %s (%s) for %s.", h.Path, h.Mode, common.FormatAge(p.now.Sub(h.Acquired))))
		wrap(st.Muted, "Quitting releases it (our node is deleted) and the next waiter gets the lock.")
		body = append(body, "", key("y/⏎", "release and quit")+"   "+key("n/esc", "stay"))
	case lockDialogLost:
		title = "Lock LOST"
		wrap(st.Error, "We no longer hold "+d.label+".")
		wrap(st.Base, d.reason)
		wrap(st.Muted, "Whatever you were doing under this lock is no longer protected: another client may hold it now.")
		if d.watching {
			wrap(st.Muted, "If our session comes back, zkscope deletes our node at once: what was declared lost stays lost.")
		}
		body = append(body, "", key("⏎", "understood"))
	case lockDialogRejoin:
		title = "Place in the queue lost"
		wrap(st.Error, "We were waiting for "+d.label+" and lost our place.")
		wrap(st.Base, d.reason)
		wrap(st.Muted, "Rejoining takes the lock again with the same options, at the end of the queue.")
		body = append(body, "", key("y/⏎", "rejoin")+"   "+key("n/esc", "not now"))
	}
	if d.err != "" {
		body = append(body, st.Error.Render(d.err))
	}
	for i, l := range body {
		body[i] = ansi.Truncate(l, inner, "…")
	}
	return st.Dialog.Width(w).Render(st.DialogTitle.Render(ansi.Truncate(title, inner, "…")) + "\n\n" + strings.Join(body, "\n"))
}

func clientSuffix(addr string) string {
	if addr == "" {
		return ""
	}
	return " from " + addr
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

// takeModeNames names the modes at the given indices of takeModes.
func takeModeNames(idx []int) []string {
	out := make([]string, len(idx))
	for i, m := range idx {
		out[i] = string(takeModes[m])
	}
	return out
}

func takeRecipeNames() []string {
	out := make([]string, len(takeRecipes))
	for i, r := range takeRecipes {
		out[i] = "auto"
		if r != nil {
			out[i] = r.Name
		}
	}
	return out
}

// waiterEvictNext says what deleting the waiting node n changes: nobody
// gets the lock; whoever watched n wakes up and re-checks the queue.
func (p *LockPane) waiterEvictNext(n string) string {
	var watchers []string
	for _, x := range p.queue.Participants {
		if x.Watches == n {
			l := p.labels[x.Node]
			if l == "" {
				l = common.ShortName(lockops.ShortName(common.LastElem(x.Node)), 24)
			}
			watchers = append(watchers, l)
		}
	}
	if len(watchers) == 0 {
		return "nobody gets the lock; nobody watched this node"
	}
	return "nobody gets the lock; " + strings.Join(watchers, ", ") + " watched it and re-checks the queue"
}
