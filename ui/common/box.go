package common

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
)

// Box draws lines inside a rounded border of outer size w×h with title
// (plain text, a path often: escaped here) in the top edge; lines are cut
// or padded to fit.
func Box(st *themes.Styles, title string, lines []string, w, h int, focused bool) string {
	return BoxSized(st, title, lines, nil, w, h, focused)
}

// BoxSized is [Box] with the width in cells of each line known (widths[i]
// of lines[i]; nil or short: measured here).
func BoxSized(st *themes.Styles, title string, lines []string, widths []int, w, h int, focused bool) string {
	bs, ts, edge := st.Pane, st.PaneTitle, st.PaneEdge
	if focused {
		bs, ts, edge = st.PaneFocused, st.PaneTitleFocused, st.PaneEdgeFocused
	}
	b := bs.GetBorderStyle()
	innerW := w - 2
	title = Truncate(printable.String(title), max(innerW-4, 1))
	top := edge.Render(b.TopLeft+b.Top) + ts.Render(" "+title+" ")
	top += edge.Render(strings.Repeat(b.Top, max(innerW-lipgloss.Width(title)-3, 0)) + b.TopRight)
	out := make([]string, 0, h)
	out = append(out, top)
	left, right := edge.Render(b.Left), edge.Render(b.Right) // the same on every line
	for i := 0; i < h-2; i++ {
		l, lw := "", 0
		switch {
		case i < len(widths) && i < len(lines):
			l, lw = lines[i], widths[i]
		case i < len(lines):
			l = lines[i]
			lw = lipgloss.Width(l)
		}
		if lw > innerW {
			l = ansi.Truncate(l, innerW, "…")
		} else if lw < innerW {
			l += strings.Repeat(" ", innerW-lw)
		}
		out = append(out, left+l+right)
	}
	out = append(out, edge.Render(b.BottomLeft+strings.Repeat(b.Bottom, innerW)+b.BottomRight))
	return strings.Join(out, "\n")
}

// PadLines indents every line by n spaces.
func PadLines(lines []string, n int) []string {
	pad := strings.Repeat(" ", n)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = pad + l
	}
	return out
}

// Truncate cuts s to w cells with an ellipsis.
func Truncate(s string, w int) string { return ansi.Truncate(s, max(w, 0), "…") }

// Overlay draws box centred over body (both w cells wide, body h lines).
func Overlay(body, box string, w, h int) string {
	bl := strings.Split(body, "\n")
	ol := strings.Split(box, "\n")
	bw := 0
	for _, l := range ol {
		bw = max(bw, lipgloss.Width(l))
	}
	x := max((w-bw)/2, 0)
	y := max((h-len(ol))/2, 0)
	for i, l := range ol {
		j := y + i
		if j >= len(bl) {
			break
		}
		line := bl[j]
		left := ansi.Truncate(line, x, "")
		right := ansi.TruncateLeft(line, x+bw, "")
		pad := strings.Repeat(" ", max(bw-lipgloss.Width(l), 0))
		bl[j] = left + l + pad + right
	}
	return strings.Join(bl, "\n")
}
