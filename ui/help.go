package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/ui/common"
)

// handleHelpKey scrolls the `?` screen when it does not fit (movement
// keys); any other key goes back.
func (m *Model) handleHelpKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if key.Matches(msg, k.ForceQuit) {
		return m.quit()
	}
	innerH := m.height - 2
	if most := m.helpScrollMax(); most > 0 {
		page := max(innerH-2, 1)
		switch {
		case key.Matches(msg, k.Down):
			m.helpScroll++
		case key.Matches(msg, k.Up):
			m.helpScroll--
		case key.Matches(msg, k.PageDown):
			m.helpScroll += page
		case key.Matches(msg, k.PageUp):
			m.helpScroll -= page
		case key.Matches(msg, k.Top):
			m.helpScroll = 0
		case key.Matches(msg, k.Bottom):
			m.helpScroll = most
		default:
			m.mode, m.helpScroll = modeNormal, 0
			return nil
		}
		m.helpScroll = min(max(m.helpScroll, 0), most)
		return nil
	}
	m.mode, m.helpScroll = modeNormal, 0
	return nil
}

// helpScrollMax is the last first line the `?` screen can scroll to (0:
// it fits). A scrolling screen drops its "press any key" line and keeps
// its last row for the scroll hint.
func (m *Model) helpScrollMax() int {
	n := len(m.helpLines())
	innerH := m.height - 2
	if n <= innerH {
		return 0
	}
	return n - 1 - (innerH - 1)
}

// helpScreen is the `?` screen: every binding, the markers, the commands.
// Key columns that do not fit side by side wrap to a new band.
func (m *Model) helpScreen() string {
	lines := m.helpLines()
	innerH := m.height - 2
	title := "help"
	if len(lines) > innerH { // scrolls: the last line says how instead
		lines = lines[:len(lines)-1]
		from := min(max(m.helpScroll, 0), m.helpScrollMax())
		to := from + innerH - 1
		title = fmt.Sprintf("help · %d%%", 100*to/len(lines))
		lines = append(lines[from:to:to], m.st.Muted.Render("j/k, pgup/pgdn scroll · any other key goes back"))
	}
	return common.Box(m.st, title, common.PadLines(lines, 1), m.width, m.height, true)
}

// helpLines is the `?` screen's text: every binding, the markers, the
// commands (Update uses its length to bound scrolling).
func (m *Model) helpLines() []string {
	st := m.st
	w := m.width - 4
	var lines []string
	lines = append(lines, st.Section.Render("Keys"), "")
	var band []string
	bandW := 0
	flush := func() {
		if len(band) > 0 {
			lines = append(lines, strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, band...), "\n")...)
			lines = append(lines, "")
		}
		band, bandW = nil, 0
	}
	h := m.help
	for _, col := range m.helpKeys().FullHelp() {
		c := h.FullHelpView([][]key.Binding{col})
		cw := lipgloss.Width(c) + 4
		if bandW > 0 && bandW+cw > w {
			flush()
		}
		band = append(band, st.HelpColumn.Render(c))
		bandW += cw
	}
	flush()
	wrap := func(s string) []string {
		return strings.Split(ansi.Wrap(s, max(w-2, 10), " "), "\n")
	}
	lines = append(lines, st.Section.Render("Markers"))
	for _, l := range common.Flow([]string{st.Ephemeral.Render("eph") + " ephemeral", st.Sequential.Render("seq") + " sequential",
		st.Container.Render("ctr") + " container", st.TTL.Render("ttl") + " TTL",
		st.Lock.Render("kind·n") + " lock (recipe · queue length)", "▸ closed", "▾ open", "… loading",
		"(ctr/ttl: only nodes zkscope made; ZooKeeper reports them as persistent)"}, "  ", max(w-2, 10)) {
		lines = append(lines, "  "+l)
	}
	lines = append(lines, "", st.Section.Render("Commands"))
	for _, l := range common.Flow([]string{":cd /path", ":ctx name", ":locks [path]", ":sessions [path]", ":ensemble", ":find text", ":theme dark|light|high-contrast|none", ":q", "(tab completes)"}, "   ", max(w-2, 10)) {
		lines = append(lines, "  "+l)
	}
	lines = append(lines, m.redisHelpLines(wrap)...) // redis.go
	lines = append(lines, "", st.Muted.Render("Press any key to go back."))
	if len(lines) > m.height-2 { // short terminal: drop the spacing first
		kept := lines[:0]
		for _, l := range lines {
			if l != "" {
				kept = append(kept, l)
			}
		}
		lines = kept
	}
	return lines
}
