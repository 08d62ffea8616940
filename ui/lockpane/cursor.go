package lockpane

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
)

func (p *Model) navigate(msg tea.KeyPressMsg) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Up):
		p.moveCursor(-1)
	case key.Matches(msg, k.Down):
		p.moveCursor(1)
	case key.Matches(msg, k.PageUp):
		p.moveCursor(-max(p.listHeight()/2, 1))
	case key.Matches(msg, k.PageDown):
		p.moveCursor(max(p.listHeight()/2, 1))
	case key.Matches(msg, k.Top):
		p.moveCursor(-len(p.entries))
	case key.Matches(msg, k.Bottom):
		p.moveCursor(len(p.entries))
	}
}

func (p *Model) moveCursor(d int) {
	p.cursor += d
	p.clampCursor()
	if p.cursor < len(p.entries) && p.entries[p.cursor].p != nil {
		p.cursorNode = p.entries[p.cursor].p.Node
	}
}

func (p *Model) clampCursor() {
	p.cursor = max(min(p.cursor, len(p.entries)-1), 0)
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	// Scroll so that the cursor's entry fits.
	h := 0
	if p.offset < p.cursor {
		h = p.listHeight() // (measured only when it may scroll)
	}
	for p.offset < p.cursor {
		used := 0
		for i := p.offset; i <= p.cursor && i < len(p.heights); i++ {
			used += p.heights[i]
		}
		if used <= h {
			break
		}
		p.offset++
	}
	p.offset = max(min(p.offset, len(p.entries)-1), 0)
}

// selected returns the participant under the cursor (not a ghost).
// Selected is the participant under the cursor (false on a node that has
// left, or none).
func (p *Model) Selected() (lockops.Participant, bool) { return p.selected() }

// SelectNode puts the cursor on node, now if the pane shows its lock, else
// once the pane shows a queue holding it.
func (p *Model) SelectNode(node string) {
	p.wantNode = node
	if p.have {
		p.applyWantNode()
	}
}

// SelectNodePending is the node [Model.SelectNode] waits to select ("" when
// none).
func (p *Model) SelectNodePending() string { return p.wantNode }

// applyWantNode moves the cursor to the node asked for by [Model.SelectNode]
// when the queue shown holds it.
func (p *Model) applyWantNode() {
	if _, ok := p.indexOf(p.wantNode); !ok || p.wantNode == "" {
		return
	}
	p.cursorNode, p.wantNode = p.wantNode, ""
	p.rebuild()
}

func (p *Model) selected() (lockops.Participant, bool) {
	if p.cursor < len(p.entries) && p.entries[p.cursor].participant() {
		return *p.entries[p.cursor].p, true
	}
	return lockops.Participant{}, false
}

// headerLines counts the lines above the list.
func (p *Model) headerLines() int {
	n := 1
	if len(p.queue.Problems) > 0 {
		n++
	}
	n += len(p.sessionLines())
	n += len(p.bannerLines())
	return n
}

// listHeight is the number of lines for the entries.
func (p *Model) listHeight() int {
	return max(p.h-p.headerLines()-p.footerHeight(), 1)
}
