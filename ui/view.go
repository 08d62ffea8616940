package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
)

// Screen layout: header, breadcrumbs, the two panes (with borders), the
// status line and the help line.
const (
	bodyTop    = 2 // first line of the panes (their top border)
	chromeRows = 4 // header + breadcrumbs + status + help
)

// View implements [tea.Model].
func (m Model) View() tea.View {
	return m.frames.cachedView(m.drawView)
}

// drawView draws the screen as a view.
func (m Model) drawView() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "zkscope"
	return v
}

// render draws the whole screen as a string (what the golden tests check).
func (m *Model) render() string {
	if m.width < minWidth || m.height < minHeight {
		return fmt.Sprintf("Terminal too small (%d×%d).\nzkscope needs at least %d×%d: enlarge the window.", m.width, m.height, minWidth, minHeight)
	}
	if m.dialing() {
		return m.dialView()
	}
	if m.mode == modeHelp {
		return m.helpScreen()
	}
	bodyH := m.height - chromeRows
	switch m.screen {
	case screenEnsemble:
		return strings.Join([]string{m.headerView(), m.screenTitle(), m.ensView.View(), m.statusView(), m.footerView()}, "\n")
	case screenSessions:
		return strings.Join([]string{m.headerView(), m.screenTitle(), m.sessView.View(), m.statusView(), m.footerView()}, "\n")
	}
	c := m.frames.chromeKept() // frames.go: kept while the lock pane churns
	if c == nil {
		c = &chrome{m.headerView(), m.breadcrumbView(), m.tree.View(m.focus == focusTree), m.statusView(), m.footerView()}
		m.frames.keepChrome(c)
	}
	body := common.JoinPanes(c.tree, m.detailPane(m.width-m.treeWidth(), bodyH))
	body = m.dialogs.View(body, m.width, bodyH, m.dialogWidth()) // ui/dialog
	return strings.Join([]string{c.header, c.crumb, body, c.status, c.footer}, "\n")
}

// treeWidth is the tree pane's outer width.
func (m *Model) treeWidth() int {
	return max(m.width*2/5, 28)
}

// detailWidth and detailHeight are the detail pane's inner size.
func (m *Model) detailWidth() int  { return max(m.width-m.treeWidth()-4, 10) }
func (m *Model) detailHeight() int { return max(m.height-chromeRows-2, 1) }

func (m *Model) headerView() string {
	st := m.st
	stateStyle := st.StateOK
	switch m.state.State {
	case zkview.StateConnecting, zkview.StateReconnecting:
		stateStyle = st.StateWarn
	case zkview.StateExpired, zkview.StateAuthFailed, zkview.StateClosed:
		stateStyle = st.StateErr
	}
	state := m.busyView() + stateStyle.Render("● "+m.state.State.String())
	if badge := m.lock.HeaderBadge(); badge != "" {
		state = badge + st.Header.Render("  ") + state // our lock, wherever the cursor is
	}
	if m.readOnly {
		state = st.StateWarn.Render("read-only ") + st.Header.Render(" ") + state
	}
	server := m.state.Server
	if server == "" && m.client != nil {
		server = strings.Join(m.client.Servers(), ",")
	}
	// Full labels when they fit, else values only, else cut.
	var left string
	for _, labels := range []bool{true, false} {
		label := func(s string) string {
			if !labels {
				return ""
			}
			return st.HeaderKey.Render(s + " ")
		}
		parts := []string{st.HeaderTitle.Render(" zkscope")}
		if m.opts.Context != "" {
			parts = append(parts, label("ctx")+st.HeaderValue.Render(m.opts.Context))
		}
		if server != "" {
			s := label("server") + st.HeaderValue.Render(printable.String(server))
			if role := m.role(); role != "" {
				s += st.HeaderKey.Render(" (" + printable.String(role) + ")")
			}
			parts = append(parts, s)
		}
		if m.state.SessionID != 0 {
			parts = append(parts, label("session")+st.HeaderValue.Render(common.HexID(m.state.SessionID)))
		}
		if who := m.identity(); who != "" { // who the session authenticated as with SASL
			parts = append(parts, label("as")+st.HeaderValue.Render(printable.String(who)))
		}
		if ok, known := m.followSupported(); known && !ok { // a server before 3.6: the tree re-reads on one-shot watches
			parts = append(parts, label("watches")+st.StateWarn.Render("one-shot"))
		}
		left = strings.Join(parts, st.Header.Render("  "))
		if lipgloss.Width(left)+lipgloss.Width(state)+2 <= m.width {
			break
		}
	}
	gap := m.width - lipgloss.Width(left) - lipgloss.Width(state) - 1
	if gap < 1 {
		left = ansi.Truncate(left, max(m.width-lipgloss.Width(state)-2, 0), "…")
		gap = max(m.width-lipgloss.Width(left)-lipgloss.Width(state)-1, 1)
	}
	return ansi.Truncate(left+st.Header.Render(strings.Repeat(" ", gap))+state+st.Header.Render(" "), m.width, "")
}

// followSupported is whether the server serves persistent watches.
func (m *Model) followSupported() (ok, known bool) {
	if m.client == nil {
		return false, false
	}
	return m.client.FollowSupported()
}

// identity is who the SASL session is, as the server's whoAmI said
// ("sasl:bob"), else as configured ("DIGEST-MD5 bob"); "" without SASL.
func (m *Model) identity() string {
	if m.client == nil || m.client.Identity() == "" {
		return ""
	}
	if len(m.whoAmI) > 0 {
		return strings.Join(m.whoAmI, ", ")
	}
	return m.client.Identity()
}

// role is the connected member's role when the members could be asked.
func (m *Model) role() string {
	if m.ens == nil {
		return ""
	}
	for _, mem := range m.ens.Members {
		if mem.Addr == m.state.Server {
			return mem.Mode
		}
	}
	return ""
}

func (m *Model) breadcrumbView() string {
	st := m.st
	p := m.tree.CursorPath()
	crumbs := []string{st.Breadcrumb.Render("/")}
	if p != "/" {
		for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
			crumbs = append(crumbs, st.Breadcrumb.Render(printable.String(part)))
		}
	}
	line := " " + crumbs[0] + strings.Join(crumbs[1:], st.BreadcrumbSep.Render(" › "))
	if len(crumbs) > 1 {
		line = " " + crumbs[0] + st.BreadcrumbSep.Render(" ") + strings.Join(crumbs[1:], st.BreadcrumbSep.Render(" › "))
	}
	right := ""
	if n := m.tree.Len(); n > 0 {
		right = st.Muted.Render(fmt.Sprintf("%d/%d ", m.tree.Cursor()+1, n))
	}
	w := m.width - lipgloss.Width(right)
	if lipgloss.Width(line) > w {
		// Keep the end of a long path: it is the part that differs.
		line = " …" + ansi.TruncateLeft(line, lipgloss.Width(line)-w+3, "")
	}
	return line + strings.Repeat(" ", max(w-lipgloss.Width(line), 0)) + right
}

func (m *Model) detailPane(w, h int) string {
	innerW, innerH := w-4, h-2
	if m.mode == modeResults || m.search.running {
		return common.Box(m.st, m.resultsTitle(), common.PadLines(m.resultsLines(innerW, innerH), 1), w, h, true)
	}
	if !m.detail.IsLock() {
		return m.detail.View(m.focus == focusDetail)
	}
	lines, widths := m.lock.ViewLines()
	if err := m.detail.LockErr(); err != nil {
		lines = append(strings.Split(m.st.Error.Render("Could not read the lock: "+printable.String(err.Error())), "\n"), lines...)
		widths = nil // measured by the box
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // (drawn blank by the box)
	}
	if len(lines) > innerH {
		lines = lines[:innerH]
	}
	for i := range widths {
		widths[i]++ // the indent PadLines adds
	}
	return common.BoxSized(m.st, "lock "+m.shownName(m.detail.Path()), common.PadLines(lines, 1), widths, w, h, m.focus == focusDetail)
}

// layout gives the panes their sizes (at start and on a resize).
func (m *Model) layout() {
	m.ensView.SetSize(m.width, m.height-chromeRows)
	m.sessView.SetSize(m.width, m.height-chromeRows)
	m.tree.SetSize(m.treeWidth(), m.height-chromeRows)
	m.detail.SetSize(m.width-m.treeWidth(), m.height-chromeRows)
	m.dialogs.SetHeight(m.height - chromeRows) // a taller dialog scrolls
}

func (m *Model) resultsTitle() string {
	s := m.search
	if s.running && s.query == "locks" {
		return fmt.Sprintf("looking for locks below %s…", s.root)
	}
	if s.running {
		return fmt.Sprintf("searching %q below %s…", s.query, s.root)
	}
	if s.query == "locks" {
		return fmt.Sprintf("locks below %s · %d%s", s.root, len(s.hits), m.locksLiveNote())
	}
	return fmt.Sprintf("find %q below %s · %d", s.query, s.root, len(s.hits))
}

func (m *Model) resultsLines(w, h int) []string {
	s := &m.search
	st := m.st
	if s.running {
		return m.searchProgressLines(w)
	}
	if len(s.hits) == 0 {
		return []string{st.Muted.Render("No matches."), "", st.Muted.Render("esc to go back")}
	}
	if s.cursor < s.offset {
		s.offset = s.cursor
	}
	if s.cursor >= s.offset+h {
		s.offset = s.cursor - h + 1
	}
	var out []string
	for i := s.offset; i < min(s.offset+h, len(s.hits)); i++ {
		hit := s.hits[i]
		note := hit.Note
		if hit.InData {
			note = "in data"
		}
		line := printable.String(hit.Path)
		note = printable.String(note)
		if note != "" {
			line = common.Truncate(line, max(w-len(note)-2, 8))
			line += strings.Repeat(" ", max(w-lipgloss.Width(line)-lipgloss.Width(note), 1)) + note
		}
		line = common.Truncate(line, w)
		if i == s.cursor {
			line = st.RowSelected.Render(line + strings.Repeat(" ", max(w-lipgloss.Width(line), 0)))
		}
		out = append(out, line)
	}
	return out
}

func (m *Model) statusView() string {
	st := m.st
	switch m.mode {
	case modeFilter, modeCommand, modeSearch:
		return common.Truncate(m.input.View(), m.width)
	}
	if m.status.Text == "" {
		return ""
	}
	return m.status.Level.Style(st).Render(common.Truncate(" "+printable.String(m.status.Text), m.width))
}

func (m *Model) footerView() string {
	k := m.keys
	var b []key.Binding
	switch m.mode {
	case modeResults:
		b = []key.Binding{k.Up, k.Down, k.Confirm, k.Cancel}
	case modeDialog:
		return ""
	case modeCommand:
		if line := m.completionLine(); line != "" {
			return line
		}
		b = []key.Binding{k.Confirm, k.Complete, k.Cancel}
	case modeFilter, modeSearch:
		b = []key.Binding{k.Confirm, k.Cancel}
	default:
		b = m.helpKeys().ShortHelp() // a view's own keys (screens.go)
	}
	return " " + m.fitHelp(b, m.width-1)
}

// fittedHelp is the help line drawn last and what it was drawn from: the
// footer is drawn with every frame, the help line rarely changes.
type fittedHelp struct {
	keys    []string // each binding's key and description ("" when disabled)
	w       int
	theme   string
	noColor bool
	line    string
}

// fitHelp renders as many leading bindings as fit in w cells, then "…".
func (m *Model) fitHelp(b []key.Binding, w int) string {
	f := m.fitted
	if f == nil {
		return m.drawHelp(b, w)
	}
	desc := func(x key.Binding) string {
		if !x.Enabled() {
			return ""
		}
		return x.Help().Desc
	}
	same := f.w == w && f.theme == m.st.Palette.Name && f.noColor == m.st.NoColor && len(f.keys) == 2*len(b)
	for i := 0; same && i < len(b); i++ {
		same = f.keys[2*i] == b[i].Help().Key && f.keys[2*i+1] == desc(b[i])
	}
	if !same {
		f.keys = f.keys[:0]
		for _, x := range b {
			f.keys = append(f.keys, x.Help().Key, desc(x))
		}
		f.w, f.theme, f.noColor, f.line = w, m.st.Palette.Name, m.st.NoColor, m.drawHelp(b, w)
	}
	return f.line
}

// drawHelp is fitHelp's drawing.
func (m *Model) drawHelp(b []key.Binding, w int) string {
	h := m.help
	h.SetWidth(0)
	for n := len(b); n > 0; n-- {
		s := h.ShortHelpView(b[:n])
		if n < len(b) {
			s += " " + m.st.HelpSep.Render("…")
		}
		if lipgloss.Width(s) <= w {
			return s
		}
	}
	return ""
}

// completionLine is the line under the `:` prompt after an ambiguous tab
// (the candidates) or a failed listing ("" when neither).
func (m *Model) completionLine() string {
	st := m.st
	switch {
	case m.compl.err != "":
		return st.Error.Render(common.Truncate(" "+printable.String(m.compl.err), m.width))
	case len(m.compl.candidates) > 0:
		return st.Muted.Render(common.Truncate(" "+printable.String(strings.Join(m.compl.candidates, "  ")), m.width))
	}
	return ""
}
