package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLiveTeatestExpandSelect runs the whole program (teatest) against the
// real server: it opens at a directory, expands it, moves onto a child and
// sees that child's stat and data in the detail pane.
func TestLiveTeatestExpandSelect(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base+"/app")
	liveCreate(t, c.Conn(), base+"/app/settings.json", []byte(`{"replicas":3}`), 0)
	liveCreate(t, c.Conn(), base+"/app/worker-", []byte("w"), zk.FlagEphemeral|zk.FlagSequence)

	m := New(Options{Client: c, Start: base, Theme: "dark"})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 35))
	t.Cleanup(func() { tm.Quit() })
	waitOut := func(what string, cond func(string) bool) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return cond(string(b)) },
			teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	contains := func(s ...string) func(string) bool {
		return func(out string) bool {
			for _, x := range s {
				if !strings.Contains(out, x) {
					return false
				}
			}
			return true
		}
	}
	waitOut("the start directory", contains("app", "connected"))
	tm.Send(tea.KeyPressMsg{Code: 'j', Text: "j"}) // onto app
	tm.Send(tea.KeyPressMsg{Code: 'l', Text: "l"}) // expand app
	waitOut("app's children", contains("settings.json", "worker-"))
	tm.Send(tea.KeyPressMsg{Code: 'j', Text: "j"}) // onto settings.json
	waitOut("the data of settings.json", contains("14 B", "replicas"))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	if got, want := fm.tree.CursorPath(), base+"/app/settings.json"; got != want {
		t.Fatalf("cursor on %s, want %s", got, want)
	}
	if !fm.detail.Loaded() || fm.detail.Node().Stat.DataLength != int32(len(`{"replicas":3}`)) {
		t.Fatalf("detail not loaded with the node's stat: %+v", fm.detail.Node())
	}
}

// TestLiveWatchAndEdit drives Update against the real server: a child made
// by another client appears through the directory's watch, a version-
// checked edit that lost the race says so, and a confirmed delete removes
// the node.
func TestLiveWatchAndEdit(t *testing.T) {
	c := liveClient(t)
	other := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base)
	liveCreate(t, c.Conn(), base+"/a", []byte("one"), 0)

	d := newLiveDriver(New(Options{Client: c, Start: base, Theme: "light"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the start directory listed", func(d *liveDriver) bool {
		return strings.Contains(d.screen(), "a") && dirLoaded(d.m, base)
	})

	// Another client creates a child: the watch brings it in.
	liveCreate(t, other.Conn(), base+"/b-from-elsewhere", nil, 0)
	d.until(t, 15*time.Second, "the new child through the watch", func(d *liveDriver) bool {
		return strings.Contains(d.screen(), "b-from-elsewhere")
	})

	// Select /a and wait for its stat.
	d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"})
	d.until(t, 15*time.Second, "a selected and read", func(d *liveDriver) bool {
		return d.m.tree.CursorPath() == base+"/a" && d.m.detail.Loaded() && bytes.Equal(d.m.detail.Node().Data, []byte("one"))
	})

	// Open the inline editor, then another client writes first.
	d.apply(tea.KeyPressMsg{Code: 'e', ShiftedCode: 'E', Text: "E", Mod: tea.ModShift})
	if d.m.mode != modeDialog {
		t.Fatalf("E did not open the inline editor; status %q", d.m.status.Text)
	}
	if _, err := other.Conn().Set(base+"/a", []byte("two"), -1); err != nil {
		t.Fatal(err)
	}
	for _, r := range "!" {
		d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 15*time.Second, "the changed-meanwhile message", func(d *liveDriver) bool {
		return strings.Contains(d.m.status.Text, "changed meanwhile")
	})
	if !strings.Contains(d.m.status.Text, "version 1 now, you saw version 0") {
		t.Errorf("status %q does not say which version the node is at now", d.m.status.Text)
	}
	if data, _, err := other.Conn().Get(base + "/a"); err != nil || string(data) != "two" {
		t.Fatalf("after a lost race the node holds %q (%v), want the other client's %q", data, err, "two")
	}

	// Delete b-from-elsewhere with confirmation.
	d.until(t, 15*time.Second, "the new version shown", func(d *liveDriver) bool {
		return bytes.Equal(d.m.detail.Node().Data, []byte("two"))
	})
	d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"})
	d.until(t, 15*time.Second, "b selected and read", func(d *liveDriver) bool {
		return d.m.tree.CursorPath() == base+"/b-from-elsewhere" && d.m.detail.Loaded()
	})
	d.apply(tea.KeyPressMsg{Code: 'd', Text: "d"})
	if d.m.mode != modeDialog {
		t.Fatalf("d did not ask for confirmation; status %q", d.m.status.Text)
	}
	d.apply(tea.KeyPressMsg{Code: 'y', Text: "y"})
	d.until(t, 15*time.Second, "the node deleted and gone from the tree", func(d *liveDriver) bool {
		for i := range d.m.tree.Len() {
			if _, name := d.m.tree.Row(i); name == "b-from-elsewhere" {
				return false
			}
		}
		return true
	})
	if _, _, err := other.Conn().Get(base + "/b-from-elsewhere"); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("b-from-elsewhere still exists (%v)", err)
	}
}

// TestLiveSearch finds nodes below a directory by name and by data, shows
// progress while it runs, and lands on a hit with enter.
func TestLiveSearch(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base+"/a/deep")
	liveCreate(t, c.Conn(), base+"/a/needle-by-name", nil, 0)
	liveCreate(t, c.Conn(), base+"/a/deep/x", []byte("there is a needle in here"), 0)
	liveCreate(t, c.Conn(), base+"/a/hay", []byte("nothing"), 0)

	d := newLiveDriver(New(Options{Client: c, Start: base + "/a", Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the start directory", func(d *liveDriver) bool { return d.m.tree.CursorPath() == base+"/a" })
	d.apply(tea.KeyPressMsg{Code: 'f', Text: "f"})
	for _, r := range "needle" {
		d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	if !d.m.search.running || !strings.Contains(d.screen(), "searching") {
		t.Fatalf("no progress shown while searching:\n%s", d.screen())
	}
	d.until(t, 15*time.Second, "the results", func(d *liveDriver) bool { return d.m.mode == modeResults })
	var got []string
	for _, h := range d.m.search.hits {
		got = append(got, fmt.Sprintf("%s data=%v", strings.TrimPrefix(h.Path, base), h.InData))
	}
	want := []string{"/a/deep/x data=true", "/a/needle-by-name data=false"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("hits %v, want %v", got, want)
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 15*time.Second, "the cursor on the first hit", func(d *liveDriver) bool { return d.m.tree.CursorPath() == base+"/a/deep/x" })
}

// TestLiveSearchCancelled: a walk whose context ends stops before reading
// and reports itself cancelled with what it found.
func TestLiveSearchCancelled(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base+"/d")
	liveCreate(t, c.Conn(), base+"/d/match-me", []byte("x"), 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ch := make(chan tea.Msg, 2)
	searchWalk(ctx, cancel, c, 7, base, "match", ch)
	var final searchMsg
	for final.id == 0 {
		if m, ok := (<-ch).(searchMsg); ok {
			final = m
		}
	}
	if !final.cancelled || !final.truncated || final.err != nil {
		t.Fatalf("final message %+v, want cancelled and truncated without error", final)
	}
}

// TestSearchKeysUpdate: esc while a walk runs asks it to stop (it is not
// dropped: its final message still shows what was found).
func TestSearchKeysUpdate(t *testing.T) {
	m := New(Options{Theme: "dark"})
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m = nm.(Model)
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan tea.Msg, 2)
	m.search = searchState{root: "/", query: "x", running: true, run: &searchRun{cancel: cancel, ch: ch}}
	id := m.nextID("search")
	nm, _ = m.Update(searchProgressMsg{id: id, listed: 10, read: 5, found: 2, dir: "/a"})
	m = nm.(Model)
	if s := ansi.Strip(m.View().Content); !strings.Contains(s, "matches  2") || !strings.Contains(s, "in       /a") {
		t.Fatalf("progress not shown:\n%s", s)
	}
	nm, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	m = nm.(Model)
	if ctx.Err() == nil || !m.search.run.cancelling {
		t.Fatal("esc did not stop the walk")
	}
	nm, _ = m.Update(searchMsg{id: id, root: "/", query: "x", hits: []searchHit{{Path: "/a/x"}}, scanned: 10, truncated: true, cancelled: true})
	m = nm.(Model)
	if m.mode != modeResults || len(m.search.hits) != 1 || !strings.Contains(m.status.Text, "incomplete") {
		t.Fatalf("after the stop: mode %v, hits %v, status %q", m.mode, m.search.hits, m.status.Text)
	}
	// A stale progress report (an older walk) is ignored.
	if cmd := m.onSearchProgress(searchProgressMsg{id: id - 1}); cmd != nil {
		t.Fatal("a stale progress report re-armed a listener")
	}
}

// TestLiveBusySpinner: the header's spinner turns while the start path is
// opened and a directory listed, and stops (no more ticks) once idle.
func TestLiveBusySpinner(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base+"/dir/child")
	d := newLiveDriver(New(Options{Client: c, Start: base, Theme: "dark"}), 120, 35)
	defer d.Close()
	if what := d.m.busyWhat(); what != "opening" {
		t.Fatalf("busy %q before the start path arrived, want opening", what)
	}
	if !strings.Contains(d.screen(), "opening") {
		t.Fatalf("no busy mark in the header:\n%s", d.screen())
	}
	d.until(t, 15*time.Second, "idle with the spinner stopped", func(d *liveDriver) bool {
		return d.m.tree.CursorPath() == base && d.m.busyWhat() == "" && !d.m.busy.ticking
	})
	d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"})
	d.apply(tea.KeyPressMsg{Code: 'l', Text: "l"})
	if what := d.m.busyWhat(); what != "listing "+base+"/dir" && what != "reading "+base+"/dir" {
		t.Fatalf("busy %q while expanding, want listing the directory", what)
	}
	d.until(t, 15*time.Second, "idle again", func(d *liveDriver) bool { return d.m.busyWhat() == "" && !d.m.busy.ticking })
}

// TestLiveCreateTTL creates a TTL node through the create dialog (the test
// server runs with extended types) and refuses a TTL type without a TTL.
func TestLiveCreateTTL(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base)
	d := newLiveDriver(New(Options{Client: c, Start: base, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the start node read", func(d *liveDriver) bool {
		return d.m.tree.CursorPath() == base && d.m.detail.Loaded()
	})
	typeText := func(s string) {
		for _, r := range s {
			d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	d.apply(tea.KeyPressMsg{Code: 'n', Text: "n"})
	typeText("short-lived")
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab}) // data
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab}) // ttl
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab}) // type
	form := func() *dialog.CreateForm { f, _ := d.m.dialogs.Front().(*dialog.CreateForm); return f }
	for form() != nil && !common.IsTTL(form().Flags()) {
		d.apply(tea.KeyPressMsg{Code: tea.KeyRight})
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	if form() == nil || !strings.Contains(form().Err(), "TTL") {
		t.Fatalf("a TTL type without a TTL was accepted (dialog %+v)", form())
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}) // back to ttl
	typeText("10m")
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 15*time.Second, "the TTL node created", func(d *liveDriver) bool {
		return strings.Contains(d.m.status.Text, "Created")
	})
	// ZooKeeper reports a TTL node's ephemeralOwner as 0 to clients (it
	// hides the TTL and container encodings), so only existence can be
	// checked from here.
	if ok, _, err := c.Conn().Exists(base + "/short-lived"); err != nil || !ok {
		t.Fatalf("the TTL node is not there: %v (status %q)", err, d.m.status.Text)
	}
	// zkscope remembers what it made: the row is tagged and the detail
	// pane names the TTL.
	d.until(t, 15*time.Second, "the new node selected with its type", func(d *liveDriver) bool {
		return d.m.tree.CursorPath() == base+"/short-lived" && strings.Contains(d.screen(), "persistent with TTL 10m0s")
	})
	var row string
	for _, l := range strings.Split(d.screen(), "\n") {
		if strings.Contains(l, "short-lived") && strings.Contains(l, "│") {
			row = l
			break
		}
	}
	if !strings.Contains(row, "ttl") {
		t.Errorf("tree row of the TTL node has no ttl tag: %q", row)
	}
}

// TestLiveDeleteTree deletes a subtree of 1,200 nodes through the
// confirmed D dialog (atomic batches, spinner with the count), and refuses
// when the root changed after the user looked at it.
func TestLiveDeleteTree(t *testing.T) {
	c := liveClient(t)
	other := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base)
	for _, name := range []string{"doomed", "kept"} {
		root := base + "/" + name
		zktest.MakePath(t, c.Conn(), root)
		for i := range 3 {
			liveBigDir(t, c.Conn(), fmt.Sprintf("%s/part-%d", root, i), 400)
		}
	}

	d := newLiveDriver(New(Options{Client: c, Start: base + "/doomed", Theme: "dark"}), 120, 35)
	defer d.Close()
	confirmDelete := func(path, name string) {
		t.Helper()
		d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
		for _, r := range "cd " + path {
			d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
		d.until(t, 15*time.Second, path+" selected and read", func(d *liveDriver) bool {
			return d.m.tree.CursorPath() == path && d.m.detail.Loaded()
		})
		d.apply(tea.KeyPressMsg{Code: 'd', ShiftedCode: 'D', Text: "D", Mod: tea.ModShift})
		if _, ok := d.m.dialogs.Front().(*dialog.DeleteTreeForm); !ok {
			t.Fatalf("D did not ask to confirm (status %q)", d.m.status.Text)
		}
		for _, r := range name {
			d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}

	// The root changes after the user looked: nothing is deleted.
	confirmDelete(base+"/kept", "kept")
	if _, err := other.Conn().Set(base+"/kept", []byte("touched"), -1); err != nil {
		t.Fatal(err)
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 15*time.Second, "the refusal", func(d *liveDriver) bool {
		return d.m.deleting == nil && strings.Contains(d.m.status.Text, "changed meanwhile")
	})
	if !strings.Contains(d.m.status.Text, "version 1 now") || !strings.Contains(d.m.status.Text, "nothing was deleted") {
		t.Errorf("refusal: %q", d.m.status.Text)
	}
	if kids, _, err := other.Conn().Children(base + "/kept/part-0"); err != nil || len(kids) != 400 {
		t.Fatalf("kept/part-0 has %d children (%v) after a refused delete, want 400", len(kids), err)
	}

	confirmDelete(base+"/doomed", "doomed")
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	if !strings.Contains(d.screen(), "deleting") {
		t.Errorf("no progress while deleting:\n%s", d.screen())
	}
	d.until(t, 60*time.Second, "the tree deleted", func(d *liveDriver) bool {
		return d.m.deleting == nil && strings.Contains(d.m.status.Text, "Deleted")
	})
	if ok, _, err := other.Conn().Exists(base + "/doomed"); err != nil || ok {
		t.Fatalf("doomed still exists (%v)", err)
	}
}

// TestLiveConcurrentCd: `:cd` commands issued before the previous one
// finished walk the same ancestors; the newest lands (a load superseded by
// a concurrent one of the same directory is not an error).
func TestLiveConcurrentCd(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	for _, p := range []string{"/x/deep/one", "/y/deep/two", "/z/deep/three"} {
		zktest.MakePath(t, c.Conn(), base+p)
	}
	d := newLiveDriver(New(Options{Client: c, Start: base + "/x/deep/one", Theme: "dark"}), 120, 35)
	defer d.Close()
	cd := func(p string) {
		d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
		for _, r := range "cd " + p {
			d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	}
	for round := range 5 {
		cd(base + "/y/deep/two")
		cd(base + "/z/deep/three")
		want := base + "/z/deep/three"
		if round%2 == 1 {
			cd(base + "/x/deep/one")
			want = base + "/x/deep/one"
		}
		d.until(t, 15*time.Second, "the newest :cd landed", func(d *liveDriver) bool {
			return d.m.tree.CursorPath() == want && d.m.busyWhat() == ""
		})
		if d.m.status.Level == common.LevelErr {
			t.Fatalf("round %d: error status %q", round, d.m.status.Text)
		}
	}
}

// dirLoaded reports whether the tree has listed p.
func dirLoaded(m Model, p string) bool {
	d, open := m.tree.Dir(p)
	return open && d.Loaded
}
