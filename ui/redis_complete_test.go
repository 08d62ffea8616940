package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// redisDriverWith is the TUI on a real server holding keys (each a
// string expiring in a minute), once the top level (cache and lock) is
// drawn; it is closed when t ends.
func redisDriverWith(t *testing.T, keys ...string) *liveDriver {
	_, c, r := redisLive(t)
	for _, k := range keys {
		r.Set(context.Background(), k, "v", time.Minute)
	}
	d := newLiveDriver(New(Options{Redis: &RedisOptions{Client: c}, Theme: "dark"}), 120, 35)
	t.Cleanup(d.Close)
	d.until(t, 15*time.Second, "the top level", screenHas("cache", "lock"))
	return d
}

// TestRedisCdCompletesKeyNames: tab on `:cd lock:or` lists the group lock
// (not opened in the tree) and completes the names in it; several
// candidates are listed by their last name.
func TestRedisCdCompletesKeyNames(t *testing.T) {
	d := redisDriverWith(t, "lock:orders:1", "lock:orders:2", "lock:billing", "cache:x")
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	for _, r := range "cd lock:or" {
		d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab})
	d.until(t, 15*time.Second, "lock's names listed and the line completed", func(d *liveDriver) bool {
		if d.m.input.Value() == "cd lock:or" && d.m.compl.dir == "/lock" { // listed after the tab: tab again
			d.apply(tea.KeyPressMsg{Code: tea.KeyTab})
		}
		return d.m.input.Value() == "cd lock:orders"
	})
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab})
	d.until(t, 15*time.Second, "lock:orders's names", func(d *liveDriver) bool {
		if d.m.compl.dir == "/lock/orders" && d.m.compl.candidates == nil {
			d.apply(tea.KeyPressMsg{Code: tea.KeyTab})
		}
		return slices.Equal(d.m.compl.candidates, []string{"1", "2"})
	})
	if v := d.m.input.Value(); v != "cd lock:orders:" {
		t.Fatalf("line %q", v)
	}
	if got := d.m.commandSuggestions("cd lock:orders:2"); !slices.Equal(got, []string{"cd lock:orders:2"}) {
		t.Fatalf("suggestions %v", got)
	}
}

// TestRedisFindKeyNames: f on a key finds the names in its group that
// contain the text in any case (SCAN MATCH), not those of other groups,
// and enter on a hit opens that key.
func TestRedisFindKeyNames(t *testing.T) {
	d := redisDriverWith(t, "lock:Orders:1", "lock:orders:2", "lock:billing", "cache:orders")
	if strings.Contains(d.m.status.Text, "ZooKeeper") {
		t.Fatalf("status %q", d.m.status.Text)
	}
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd lock:billing")
	d.until(t, 15*time.Second, "lock:billing", func(d *liveDriver) bool { return d.m.tree.CursorPath() == "/lock/billing" })
	d.apply(tea.KeyPressMsg{Code: 'f', Text: "f"}) // on a key with nothing below: its group, lock
	d.typeLine("ORDER")
	d.until(t, 15*time.Second, "the hits", func(d *liveDriver) bool { return d.m.mode == modeResults && !d.m.search.running })
	var hits []string
	for _, h := range d.m.search.hits {
		hits = append(hits, h.Path)
	}
	if !slices.Equal(hits, []string{"/lock/Orders/1", "/lock/orders/2"}) {
		t.Fatalf("hits %v\n%s", hits, d.screen())
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyDown})
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 15*time.Second, "lock:orders:2 open", func(d *liveDriver) bool { return d.m.tree.CursorPath() == "/lock/orders/2" })
}
