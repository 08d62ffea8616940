package lockpane

import (
	"fmt"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
)

// bannerLines are the pane's lines about our own take or lock, drawn above
// the queue whatever lock is shown.
func (p *Model) bannerLines() []string {
	if p.loader != nil {
		return p.redisBannerLines() // redis_results.go
	}
	st := p.st
	a := &p.act
	var out []string
	if t := a.taking; t != nil {
		pr := t.progress
		wait := common.FormatAge(p.now.Sub(t.started))
		switch {
		case pr.Node == "":
			out = append(out, p.spinner.View()+" "+st.Info.Render(fmt.Sprintf("Joining the queue of %s (%s)… %s", printable.String(t.path), t.mode, wait)))
		case pr.WaitingOn != "":
			// Take reports when our own wait moves; the shown queue (when
			// it is ours) is fresher about everyone ahead of us.
			pos, n, waitingOn := pr.Position+1, pr.QueueLen, pr.WaitingOn
			if i, ok := p.indexOf(pr.Node); ok && pr.Path == p.path {
				pos, n = i+1, len(p.queue.Participants)
				if w := p.queue.Participants[i].Watches; w != "" {
					waitingOn = w
				}
			}
			on := printable.String(common.LastElem(waitingOn))
			if l, ok := p.labelOf(waitingOn); ok && pr.Path == p.path {
				on = l + " " + common.ShortName(lockops.ShortName(on), 24)
			}
			out = append(out, p.spinner.View()+st.Info.Render(fmt.Sprintf("We wait at position %d of %d on %s · %s", pos, n, on, wait)))
			if pr.Path != p.path {
				out = append(out, st.Muted.Render("  in "+printable.String(pr.Path)+" · u stops waiting"))
			} else {
				out = append(out, st.Muted.Render("  u stops waiting (our node is deleted)"))
			}
		default:
			out = append(out, p.spinner.View()+" "+st.Info.Render("Taking "+printable.String(t.path)+"…"))
		}
	}
	if h := a.held; h != nil && a.holdState != hold.StateReleased {
		since := common.FormatAge(p.now.Sub(h.Acquired))
		where := ""
		if h.Path != p.path {
			where = " " + printable.String(h.Path)
		}
		switch a.holdState {
		case hold.StateHeld:
			s := st.Success.Render(fmt.Sprintf("● We hold this lock%s (%s) for %s", where, h.Mode, since)) + st.Muted.Render(" · u releases")
			out = append(out, s)
			out = append(out, st.Muted.Render(fmt.Sprintf("  fence %d · session %s", h.Czxid, lockops.FormatSession(h.Session))))
			if a.revokeAsked {
				out = append(out, st.Warning.Render("  Someone asked for it (revocation request)."))
			}
		case hold.StateSuspended:
			out = append(out, st.BadgeWarn.Render("SUSPENDED")+" "+st.Warning.Render("Disconnected: we may no longer hold"+where+"."))
			if !a.holdDeadline.IsZero() {
				left := max(a.holdDeadline.Sub(p.now), 0)
				out = append(out, "  "+st.Warning.Render(fmt.Sprintf("Treated as LOST in %.1fs", left.Seconds()))+st.Muted.Render(" unless ZooKeeper answers (fence "+fmt.Sprint(h.Czxid)+")"))
			}
			out = append(out, st.Muted.Render("  "+printable.String(a.holdReason)))
		case hold.StateLost:
			out = append(out, st.BadgeErr.Render("LOST")+" "+st.Error.Render("We no longer hold"+where+"."))
			out = append(out, st.Muted.Render("  "+printable.String(a.holdReason)))
		}
	}
	if a.busy != "" {
		out = append(out, st.Info.Render(printable.String(a.busy)))
	}
	return out
}

// HeaderBadge is a short note of our lock for the header ("" when we
// neither hold nor wait for one): the lock stays visible wherever the
// cursor is.
func (p *Model) HeaderBadge() string {
	st := p.st
	a := &p.act
	switch {
	case a.taking != nil:
		return st.StateWarn.Render("waiting for " + printable.String(a.taking.path))
	case a.held == nil:
		return ""
	case a.holdState == hold.StateHeld:
		return st.StateOK.Render("holding " + printable.String(a.held.Path))
	case a.holdState == hold.StateSuspended && !a.holdDeadline.IsZero():
		left := max(a.holdDeadline.Sub(p.now), 0)
		return st.StateWarn.Render(fmt.Sprintf("lock SUSPENDED %s (lost in %.1fs)", printable.String(a.held.Path), left.Seconds()))
	case a.holdState == hold.StateSuspended:
		return st.StateWarn.Render("lock SUSPENDED " + printable.String(a.held.Path))
	case a.holdState == hold.StateLost:
		return st.StateErr.Render("lock LOST " + printable.String(a.held.Path))
	}
	return ""
}

// WaiterEvictNext says what deleting the waiting node n changes: nobody
// gets the lock; whoever watched n wakes up and re-checks the queue.
func (p *Model) WaiterEvictNext(n string) string {
	var watchers []string
	for _, x := range p.queue.Participants {
		if x.Watches == n {
			l := p.label(x.Node)
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

// Now is the pane's clock, moved on by the ticks (the lock dialogs draw
// ages with it).
func (p *Model) Now() time.Time { return p.now }

// NodeRefs names nodes of the shown queue for a message: "W1 (0000000004)",
// or a shortened name when the node is not in the queue.
func (p *Model) NodeRefs(ns []string) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		name := common.LastElem(n)
		l := p.label(n)
		if l == "" {
			out[i] = common.ShortName(lockops.ShortName(name), 24)
			continue
		}
		seq := name
		if len(seq) > 10 {
			seq = seq[len(seq)-10:]
		}
		seq = printable.String(seq)
		out[i] = l + " (" + seq + ")"
	}
	return out
}
