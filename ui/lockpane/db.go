package lockpane

// A database server's lock (PostgreSQL advisory, MySQL GET_LOCK) read
// through the loader seam: its participants are sessions (a pid or a
// connection id), drawn with their client, state and statement; the
// pane does not act on them (the note names the commands that do).

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
)

// SetDBNote makes the pane show a database server's locks; note is what
// a lock action key says instead of acting.
func (p *Model) SetDBNote(note string) { p.dbNote = note }

// dbActionKey answers the lock action keys on a database server.
func (p *Model) dbActionKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := p.keys
	if key.Matches(msg, k.Take, k.Release, k.Revoke, k.ForceDelete) {
		p.setNote(common.LevelInfo, p.dbNote)
		return nil, true
	}
	return nil, false
}

// dbWord is what a participant's session is called on its server.
func dbWord(k lockops.Kind) string {
	if k == lockops.KindMySQLGetLock {
		return "connection"
	}
	return "pid"
}

// dbEntryLines draws a database participant: its session with how long
// it has held or waited, then its client, state and statement (after the
// first problem about it).
func (p *Model) dbEntryLines(x lockops.Participant, label, mark string) []string {
	st := p.st
	labelStyle, icon, since := st.Waiter, "○", "waiting "
	if x.State == lockops.StateHolding {
		labelStyle, icon, since = st.Holder, "●", "holding "
	}
	age := ""
	if !x.Ctime.IsZero() && !p.queue.ReadAt.IsZero() {
		age = since + common.FormatAge(p.queue.ReadAt.Sub(x.Ctime))
	}
	who := fmt.Sprintf("%s %d", dbWord(p.queue.Kind), x.Session)
	head := fmt.Sprintf("%-3s %s ", label, icon)
	nameW := max(p.w-2-ansi.StringWidth(head)-ansi.StringWidth(age)-2, 8)
	first := mark + labelStyle.Render(head+fmt.Sprintf("%-*s", nameW, common.ShortName(who, nameW))) + "  " + st.Muted.Render(age)
	var what []string
	if x.Client != "" {
		what = append(what, printable.String(x.Client))
	}
	if d := x.DB; d != nil {
		for _, s := range []string{d.State, d.Query} {
			if s = strings.Join(strings.Fields(printable.String(s)), " "); s != "" {
				what = append(what, s)
			}
		}
		if d.NoBackend {
			what = append(what, "no session (a prepared transaction)")
		}
	}
	second := "    " + st.Value.Render(ansi.Truncate(strings.Join(what, " · "), max(p.w-8, 8), "…"))
	if pr, ok := p.dbProblemOf(x); ok {
		second = "    " + p.redisBadge(pr.Kind) + " " + strings.TrimPrefix(second, "    ")
	}
	return []string{first, second}
}

// dbSessionRE finds the session a problem is about: the first one its
// detail names (lockops/dblock: "backend N …", "holder connection N …";
// a waiter's blockers come after).
var dbSessionRE = regexp.MustCompile(`(?:backend|connection) (\d+)`)

// dbProblemOf is the first problem about x: one naming its key and, first,
// its session.
func (p *Model) dbProblemOf(x lockops.Participant) (lockops.Problem, bool) {
	id := strconv.FormatInt(x.Session, 10)
	for _, pr := range p.queue.Problems {
		if pr.Node != x.Name {
			continue // the pattern only for the participant's own key
		}
		if m := dbSessionRE.FindStringSubmatch(pr.Detail); m != nil && m[1] == id {
			return pr, true
		}
	}
	return lockops.Problem{}, false
}

// dbFooterLine is the pane's last line on a database server when no
// problem is: the selected participant's key, user, application and lock
// level, as far as the server says.
func (p *Model) dbFooterLine() string {
	x, ok := p.selected()
	if !ok {
		return ""
	}
	parts := []string{x.Name}
	if d := x.DB; d != nil {
		for _, s := range []string{d.User, d.Application, d.Level} {
			if s != "" {
				parts = append(parts, s)
			}
		}
	}
	return p.st.Subtle.Render(printable.String(strings.Join(parts, " · ")))
}
