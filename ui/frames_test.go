package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestFrameCache: within a frame the last drawing is returned and a
// frameMsg is scheduled (once) to draw what it leaves out; a key press
// and the frameMsg draw afresh; without a cache every View draws.
func TestFrameCache(t *testing.T) {
	draws := 0
	draw := func() tea.View { draws++; return tea.NewView("") }
	var none *frameCache
	none.cachedView(draw)
	none.cachedView(draw)
	if draws != 2 || none.afterUpdate(struct{}{}, nil) != nil {
		t.Fatalf("no cache: %d draws", draws)
	}

	f := &frameCache{}
	draws = 0
	f.cachedView(draw)
	type someEvent struct{}
	cmd := f.afterUpdate(someEvent{}, nil)
	f.cachedView(draw)
	if draws != 1 || cmd == nil || !f.pending {
		t.Fatalf("within a frame: %d draws, cmd %v, pending %v", draws, cmd != nil, f.pending)
	}
	if again := f.afterUpdate(someEvent{}, nil); again != nil {
		t.Error("a second frameMsg scheduled while one is pending")
	}
	msgs := cmd()
	var got tea.Msg
	if b, ok := msgs.(tea.BatchMsg); ok {
		for _, c := range b {
			if c != nil {
				got = c()
			}
		}
	} else {
		got = msgs
	}
	if _, ok := got.(frameMsg); !ok { // when it comes is the timer's: a loaded machine delays it
		t.Fatalf("the scheduled message is a %T", got)
	}
	f.afterUpdate(frameMsg{}, nil)
	f.cachedView(draw)
	if draws != 2 || f.pending {
		t.Fatalf("after the frame: %d draws, pending %v", draws, f.pending)
	}
	f.afterUpdate(tea.KeyPressMsg{Code: 'j'}, nil)
	f.cachedView(draw)
	if draws != 3 {
		t.Fatalf("a key press did not draw at once: %d draws", draws)
	}
}

// TestFrameCacheChurn: while the lock pane churns, a new queue draws at
// once, other messages wait churnFrameInterval, and a frameMsg after a
// drawing that covered everything draws nothing.
func TestFrameCacheChurn(t *testing.T) {
	draws := 0
	draw := func() tea.View { draws++; return tea.NewView("") }
	type watchEvent struct{}
	f := &frameCache{}
	f.cachedView(draw)
	f.lockPane(true, false)
	if f.afterUpdate(watchEvent{}, nil) == nil {
		t.Fatal("no frameMsg scheduled for a watch event")
	}
	f.cachedView(draw)
	if draws != 1 || f.interval() != churnFrameInterval {
		t.Fatalf("a watch event while churning: %d draws, interval %s", draws, f.interval())
	}
	f.lockPane(true, true) // a read of the pane came back
	f.afterUpdate(struct{}{}, nil)
	f.cachedView(draw)
	if draws != 2 {
		t.Fatalf("a new queue did not draw at once: %d draws", draws)
	}
	f.lockPane(true, false)
	f.afterUpdate(frameMsg{}, nil)
	f.cachedView(draw)
	if draws != 2 || f.pending {
		t.Fatalf("a frameMsg after a drawing that covered it: %d draws, pending %v", draws, f.pending)
	}
	f.lockPane(false, false)
	if f.interval() != frameInterval {
		t.Errorf("not churning: interval %s", f.interval())
	}
}

// TestFrameCacheKeepsChrome: while the lock pane churns, a drawing keeps
// the screen around the pane of a drawing less than churnFrameInterval
// old, and is then stale: the frame due draws everything; a key press
// drops the chrome kept; when the pane does not churn it is never kept.
func TestFrameCacheKeepsChrome(t *testing.T) {
	f := &frameCache{}
	c := &chrome{header: "h"}
	draw := func() tea.View {
		if f.chromeKept() == nil {
			f.keepChrome(c)
		}
		return tea.NewView("")
	}
	f.cachedView(draw)
	if f.partial || f.stale || f.kept != c {
		t.Fatalf("not churning: partial %v, stale %v, kept %v", f.partial, f.stale, f.kept != nil)
	}
	f.lockPane(true, true)
	f.cachedView(draw)
	if !f.partial || !f.stale {
		t.Fatalf("a new queue while churning: partial %v, stale %v (want the chrome kept, the drawing stale)", f.partial, f.stale)
	}
	f.afterUpdate(frameMsg{}, nil)
	f.cachedView(draw)
	if f.partial || f.stale {
		t.Fatalf("the frame due kept the chrome: partial %v, stale %v", f.partial, f.stale)
	}
	f.lockPane(true, true)
	f.afterUpdate(tea.KeyPressMsg{Code: 'j'}, nil)
	if f.kept != nil {
		t.Fatal("a key press kept the chrome")
	}
	var none *frameCache
	if none.chromeKept() != nil {
		t.Fatal("no cache kept a chrome")
	}
}
