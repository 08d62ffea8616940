package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// typeText sends s key by key.
func typeText(d *liveDriver, s string) {
	for _, r := range s {
		d.apply(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// lockOnlyFor makes p readable by anyone and writable only by the digest
// user bob (whom the tests never are).
func lockOnlyFor(t *testing.T, conn *zk.Conn, p string, perms int32) {
	t.Helper()
	acl := append(zk.DigestACL(zk.PermAll, "bob", "pw"), zk.WorldACL(perms)...)
	if perms == 0 {
		acl = zk.DigestACL(zk.PermAll, "bob", "pw")
	}
	if _, err := conn.SetACL(p, acl, -1); err != nil {
		t.Fatalf("set the ACL of %s: %v", p, err)
	}
}

// TestLiveTakeNoAuth: t on a lock directory the session may read but not
// write says so in one sentence with the next step.
func TestLiveTakeNoAuth(t *testing.T) {
	c := liveClient(t)
	lockPath := zktest.Path(t) + "/locked"
	contender(t, lockPath, "alpha")()
	lockOnlyFor(t, c.Conn(), lockPath, zk.PermRead)

	d := newLiveDriver(New(Options{Client: c, Start: lockPath, Theme: "light"}), 160, 35)
	defer d.Close()
	d.until(t, 20*time.Second, "alpha in the lock pane", func(d *liveDriver) bool {
		return d.m.detail.IsLock() && len(d.m.lock.Queue().Participants) == 1
	})
	d.apply(tea.KeyPressMsg{Code: 't', Text: "t"})
	if !d.m.lock.Modal() {
		t.Fatalf("t did not open the take dialog; screen:\n%s", d.screen())
	}
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 20*time.Second, "the refusal", func(d *liveDriver) bool {
		return strings.Contains(d.screen(), "(NoAuth)")
	})
	s := strings.Join(strings.Fields(d.screen()), " ")
	if !strings.Contains(s, "No permission to create nodes in "+lockPath+" (NoAuth)") || !strings.Contains(s, "--auth-file") {
		t.Fatalf("the refusal does not say what happened and what to do:\n%s", d.screen())
	}
}

// TestLiveLocksSkipsUnreadable: `:locks` lists the locks it can read and
// names the subtree it could not (NoAuth) instead of failing as a whole.
func TestLiveLocksSkipsUnreadable(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	contender(t, base+"/open/deploy", "alpha")()
	contender(t, base+"/secret/inner/lock", "beta")()
	lockOnlyFor(t, c.Conn(), base+"/secret", 0)

	d := newLiveDriver(New(Options{Client: c, Start: base, Theme: "dark"}), 160, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the start directory", func(d *liveDriver) bool { return d.m.tree.CursorPath() == base })
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	typeText(d, "locks")
	d.apply(tea.KeyPressMsg{Code: tea.KeyEnter})
	d.until(t, 20*time.Second, "the lock list", func(d *liveDriver) bool { return d.m.mode == modeResults })
	if len(d.m.search.hits) != 1 || d.m.search.hits[0].Path != base+"/open/deploy" {
		t.Fatalf("hits %+v, want the readable lock only", d.m.search.hits)
	}
	want := "1 lock below " + base + ". Skipped " + base + "/secret: not readable with this session's credentials"
	if st := d.m.status; !strings.HasPrefix(st.Text, want) || st.Level != common.LevelWarn {
		t.Fatalf("status %q, want it to start %q", st.Text, want)
	}
}

// TestFindPromptOpensEmpty: f opens an empty prompt; ↑ brings the last
// query back.
func TestFindPromptOpensEmpty(t *testing.T) {
	m := fixture(t, 100, 30, "dark")
	m.lastFind = "needle"
	m = pressKeys(t, m, "f")
	if m.mode != modeSearch || m.input.Value() != "" {
		t.Fatalf("f opened mode %v with %q typed in", m.mode, m.input.Value())
	}
	m = pressKeys(t, m, "up")
	if m.input.Value() != "needle" {
		t.Fatalf("↑ gave %q, want the last query", m.input.Value())
	}
}

// TestLiveLockFootnote4lw: against a server with the default four-letter
// word whitelist (srvr only) the lock pane says once why watches show ?
// and clients -, with the line to add.
func TestLiveLockFootnote4lw(t *testing.T) {
	cl := zktest.StartStandalone(t, zktest.Options{NoWhitelist: true})
	c := connectTo(t, cl)
	lockPath := zktest.Path(t) + "/locks/job"
	contenderWith(t, connectTo(t, cl), lockPath, "alpha")()
	contenderWith(t, connectTo(t, cl), lockPath, "beta")

	d := newLiveDriver(New(Options{Client: c, Start: lockPath, Theme: "dark"}), 160, 40)
	defer d.Close()
	d.until(t, 30*time.Second, "the footnote", func(d *liveDriver) bool {
		return len(d.m.lock.Queue().Participants) == 2 && strings.Contains(d.screen(), "4lw.commands.whitelist")
	})
	s := flatPane(d.screen())
	for _, want := range []string{"watches (?) unknown", "refused the four-letter words", diagnose.WhitelistLine} {
		if !strings.Contains(s, want) {
			t.Errorf("the footnote lacks %q:\n%s", want, d.screen())
		}
	}
}

// flatPane is the text of the right-hand pane, its lines joined with
// spaces (a wrapped sentence reads as one).
func flatPane(screen string) string {
	var parts []string
	for _, l := range strings.Split(screen, "\n") {
		i := strings.Index(l, "││")
		if i < 0 {
			continue
		}
		l = strings.TrimSuffix(strings.TrimRight(l[i+len("││"):], " "), "│")
		parts = append(parts, strings.TrimSpace(l))
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// connectTo connects to cl.
func connectTo(t *testing.T, cl *zktest.Cluster) *zkview.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: cl.Addrs(), SessionTimeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestLiveNoAuthNode: at the smallest size, a node this identity may not
// read says so and what to do next, on the first visit (the cursor moved
// onto it while the visible rows are read) and after each r; a read
// overtaken by another never shows as the error.
func TestLiveNoAuthNode(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base)
	for _, n := range []string{"/a", "/b", "/secret", "/z"} {
		liveCreate(t, c.Conn(), base+n, []byte("x"), 0)
	}
	lockOnlyFor(t, c.Conn(), base+"/secret", 0)

	d := newLiveDriver(New(Options{Client: c, Start: base, Theme: "dark"}), minWidth, minHeight)
	defer d.Close()
	d.until(t, 15*time.Second, "the start directory", func(d *liveDriver) bool { return d.m.tree.CursorPath() == base })
	d.apply(tea.KeyPressMsg{Code: tea.KeyRight})
	d.until(t, 15*time.Second, "its children", func(d *liveDriver) bool {
		dir, open := d.m.tree.Dir(base)
		return open && dir.Loaded
	})
	for i := 0; i < 6 && d.m.tree.CursorPath() != base+"/secret"; i++ { // onto it at once, while the rows' stats are read
		d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"})
	}
	if d.m.tree.CursorPath() != base+"/secret" {
		t.Fatalf("the cursor is on %s", d.m.tree.CursorPath())
	}
	pane := func(d *liveDriver) string { // the detail pane's words
		return strings.Join(strings.Fields(strings.ReplaceAll(ansi.Strip(d.m.detail.View(false)), "│", " ")), " ")
	}
	said := func(d *liveDriver) bool {
		s := pane(d)
		if strings.Contains(s, "superseded") {
			t.Fatalf("an overtaken read shows as the error:\n%s", d.screen())
		}
		return strings.Contains(s, "Not readable with this identity.") && strings.Contains(s, "without credentials")
	}
	d.until(t, 15*time.Second, "the first visit's explanation", said)
	for range 3 {
		d.apply(tea.KeyPressMsg{Code: 'r', Text: "r"})
		d.until(t, 15*time.Second, "the explanation after r", said)
	}
	// What to do next is further down the pane.
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab})
	for range 8 {
		d.apply(tea.KeyPressMsg{Code: 'j', Text: "j"})
	}
	if s := pane(d); !strings.Contains(s, "--auth-file") {
		t.Fatalf("the pane does not say how to read it:\n%s", d.screen())
	}
}
