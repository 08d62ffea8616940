package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/dbview/dbtest"
)

// TestDBTreeAndLockPane: the TUI on a real PostgreSQL (dbview/dbtest)
// with a real psycopg2 holder and a real psql waiter of advisory lock 4242:
// the tree shows the database and the lock, the lock pane the holder then
// the waiter with their pids, and the action keys act on nothing: the key
// bar shows only the keys that work on a database server.
func TestDBTreeAndLockPane(t *testing.T) {
	pg := dbtest.Server(t)
	db := pg.NewDatabase(t, "tui")
	cfg, err := dbview.ParseURL(pg.URL(db))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := dbview.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	holder := pg.Python(t, db, "session", "SELECT pg_advisory_lock(4242)", "tui-holder")
	holder.WaitHeld(t)
	waiter := pg.PsqlPeer(t, db, "SELECT pg_advisory_lock(4242)")

	d := newLiveDriver(New(Options{DB: &DBOptions{Client: c}, Theme: "dark"}), 120, 35)
	defer d.Close()
	defer d.m.db.Close()
	d.until(t, 30*time.Second, "the database in the tree", screenHas(db))
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	d.typeLine("cd /" + db + "/4242")
	hp, wp := fmt.Sprintf("pid %d", holder.PID), fmt.Sprintf("pid %d", waiter.PID)
	d.until(t, 30*time.Second, "the holder and the waiter in the lock pane", screenHas("4242", hp, wp))
	if p := d.m.tree.CursorPath(); p != "/"+db+"/4242" {
		t.Fatalf("cursor on %s", p)
	}
	out := d.screen()
	if i, j := strings.Index(out, hp), strings.Index(out, wp); i < 0 || j < i {
		t.Fatalf("want the holder (%s) above the waiter (%s):\n%s", hp, wp, out)
	}
	t.Logf("screen:\n%s", out)
	if _, lock := d.m.tree.Lock("/" + db + "/4242"); !lock {
		t.Fatal("the lock's row is not tagged a lock")
	}
	for _, focus := range []string{"tree", "lock pane"} {
		bar := d.m.footerView()
		for _, k := range []string{"take lock", "release", "revoke", "force-delete", "its session", "find below", "data viewer", "new child", "delete"} {
			if strings.Contains(bar, k) {
				t.Errorf("%s: the key bar offers %q, which does nothing on a database server: %s", focus, k, bar)
			}
		}
		if !strings.Contains(bar, "problems in full") {
			t.Errorf("%s: the key bar lacks the problems key: %s", focus, bar)
		}
		d.apply(tea.KeyPressMsg{Code: tea.KeyTab}) // (twice: back on the tree)
	}

	d.apply(tea.KeyPressMsg{Code: 'X', Text: "X"})
	d.until(t, 10*time.Second, "the action keys' note", screenHas("zkscope evict"))

	holder.Stop()
	d.apply(tea.KeyPressMsg{Code: 'r', Text: "r"})
	d.until(t, 30*time.Second, "the waiter holding once the holder left", func(d *liveDriver) bool {
		out := d.screen()
		return !strings.Contains(out, hp) && strings.Contains(out, wp)
	})
}
