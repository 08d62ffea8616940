package cmdutil

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// ProgressLine is a long scan's one-line progress on stderr: nodes
// walked, locks found, rate. It appears only on a terminal and only once
// the scan has taken progressAfter, is redrawn at most every
// progressEvery, and is erased when the scan ends. A nil *ProgressLine
// draws nothing.
type ProgressLine struct {
	w           io.Writer
	locks       bool // the line counts locks too
	mu          sync.Mutex
	start, last time.Time
	shown       bool
}

const (
	progressAfter = time.Second
	progressEvery = 100 * time.Millisecond
)

// NewProgressLine returns a progress line on w when w is a terminal and
// enabled (machine output such as --json never gets one), else nil.
func NewProgressLine(w io.Writer, enabled, locks bool) *ProgressLine {
	if !enabled || !WriterIsTerminal(w) {
		return nil
	}
	return &ProgressLine{w: w, locks: locks, start: time.Now()}
}

// Update redraws the line when it is due.
func (p *ProgressLine) Update(nodes, locks int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	elapsed := now.Sub(p.start)
	if elapsed < progressAfter || now.Sub(p.last) < progressEvery {
		return
	}
	p.last, p.shown = now, true
	line := fmt.Sprintf("scanning: %d nodes", nodes)
	if p.locks {
		line += fmt.Sprintf(", %d locks", locks)
	}
	line += fmt.Sprintf(", %.0f nodes/s", float64(nodes)/elapsed.Seconds())
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
}

// Done erases the line, if it was drawn.
func (p *ProgressLine) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
