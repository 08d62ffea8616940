package common

import (
	"strings"
	"sync"

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
	e := edgesOf(st, title, w, focused)
	innerW := w - 2
	var b strings.Builder
	b.Grow(len(e.top) + len(e.bottom) + (h-2)*(len(e.left)+len(e.right)+innerW+16))
	b.WriteString(e.top)
	for i := 0; i < h-2; i++ {
		l, lw := "", 0
		switch {
		case i < len(widths) && i < len(lines):
			l, lw = lines[i], widths[i]
		case i < len(lines):
			l = lines[i]
			lw = lipgloss.Width(l)
		}
		b.WriteByte('\n')
		b.WriteString(e.left)
		if lw > innerW {
			b.WriteString(ansi.Truncate(l, innerW, "…"))
		} else {
			b.WriteString(l)
			for ; lw < innerW; lw++ {
				b.WriteByte(' ')
			}
		}
		b.WriteString(e.right)
	}
	b.WriteByte('\n')
	b.WriteString(e.bottom)
	return b.String()
}

// edges are a box's drawn edges: its top line (with the title), the
// left and right edge of every line, and its bottom line.
type edges struct{ top, left, right, bottom string }

// edgeKey is what a box's edges depend on.
type edgeKey struct {
	st      *themes.Styles
	theme   string
	plain   bool
	title   string
	w       int
	focused bool
}

// boxEdges keeps the edges drawn lately (a pane's box is drawn on every
// drawing of the screen; lipgloss takes microseconds per piece).
var boxEdges struct {
	sync.Mutex
	m map[edgeKey]edges
}

// edgesOf are the edges of a box titled title, w cells wide, drawn in
// st's pane styles (focused or not).
func edgesOf(st *themes.Styles, title string, w int, focused bool) edges {
	k := edgeKey{st, st.Palette.Name, st.NoColor, title, w, focused}
	boxEdges.Lock()
	defer boxEdges.Unlock()
	if e, ok := boxEdges.m[k]; ok {
		return e
	}
	bs, ts, edge := st.Pane, st.PaneTitle, st.PaneEdge
	if focused {
		bs, ts, edge = st.PaneFocused, st.PaneTitleFocused, st.PaneEdgeFocused
	}
	b := bs.GetBorderStyle()
	innerW := w - 2
	title = Truncate(printable.String(title), max(innerW-4, 1))
	top := edge.Render(b.TopLeft+b.Top) + ts.Render(" "+title+" ")
	top += edge.Render(strings.Repeat(b.Top, max(innerW-lipgloss.Width(title)-3, 0)) + b.TopRight)
	e := edges{top: top, left: edge.Render(b.Left), right: edge.Render(b.Right),
		bottom: edge.Render(b.BottomLeft + strings.Repeat(b.Bottom, max(innerW, 0)) + b.BottomRight)}
	if boxEdges.m == nil || len(boxEdges.m) >= 64 {
		boxEdges.m = map[edgeKey]edges{}
	}
	boxEdges.m[k] = e
	return e
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

// JoinPanes sets two panes side by side. Both are boxes ([Box]):
// every line of each as wide as its box, so their lines join as they are;
// boxes of different heights fall back to lipgloss's measuring join.
func JoinPanes(left, right string) string {
	if strings.Count(left, "\n") != strings.Count(right, "\n") {
		return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
	}
	var b strings.Builder
	b.Grow(len(left) + len(right))
	for left != "" || right != "" {
		l, lrest, _ := strings.Cut(left, "\n")
		r, rrest, more := strings.Cut(right, "\n")
		b.WriteString(l)
		b.WriteString(r)
		if more {
			b.WriteByte('\n')
		}
		left, right = lrest, rrest
	}
	return b.String()
}
