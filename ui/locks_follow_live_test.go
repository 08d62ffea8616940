package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// hitPaths are the `:locks` list's paths.
func hitPaths(d *liveDriver) []string {
	var ps []string
	for _, h := range d.m.search.hits {
		ps = append(ps, h.Path)
	}
	return ps
}

// TestLiveLocksListFollows: the `:locks` list stays current while shown:
// a lock directory a real kazoo client makes afterwards appears, with its
// waiter counted, and leaves when its directory is deleted; the title says the
// list is live; leaving the list ends the follow.
func TestLiveLocksListFollows(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	contender(t, base+"/a/deploy", "alpha")()
	d := newLiveDriver(New(Options{Client: c, Start: base, Theme: "dark"}), 160, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the start directory", func(d *liveDriver) bool { return d.m.tree.CursorPath() == base })
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	typeText(d, "locks")
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 30*time.Second, "the lock list, followed", func(d *liveDriver) bool {
		return d.m.mode == modeResults && d.m.search.follow != nil && slices.Equal(hitPaths(d), []string{base + "/a/deploy"})
	})

	cl := zktest.Shared(t)
	holder, _ := zktest.KazooHolder(t, cl.ConnectString(), base+"/b/job", "kazoo-1", 20*time.Second)
	waiter := zktest.KazooLoop(t, cl.ConnectString(), base+"/b/job", "kazoo-2", time.Second)
	d.until(t, 30*time.Second, "the kazoo lock in the list with its waiter", func(d *liveDriver) bool {
		hs := d.m.search.hits
		return len(hs) == 2 && hs[1].Path == base+"/b/job" && strings.HasSuffix(hs[1].Note, "· 2")
	})
	if title := d.m.resultsTitle(); !strings.HasSuffix(title, "· live") {
		t.Errorf("title %q does not say the list is live", title)
	}
	waiter.Kill()
	holder.Kill()
	// Their sessions would end only at their timeout: their nodes and the
	// directory are deleted now.
	kids, _, err := c.Conn().Children(base + "/b/job")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kids {
		if err := c.Conn().Delete(base+"/b/job/"+k, -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Conn().Delete(base+"/b/job", -1); err != nil {
		t.Fatal(err)
	}
	d.until(t, 30*time.Second, "the kazoo lock gone from the list", func(d *liveDriver) bool {
		return slices.Equal(hitPaths(d), []string{base + "/a/deploy"})
	})
	d.apply(tea.KeyPressMsg{Code: tea.KeyEscape})
	if d.m.search.follow != nil {
		t.Error("the follow goes on after the list was left")
	}
}
