package ui

import (
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/detail"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/ui/tree"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-zookeeper/zk"
)

func TestNavigation(t *testing.T) {
	m := fixture(t, 100, 30, "dark")
	if got := m.tree.CursorPath(); got != "/" {
		t.Fatalf("start at %s, want /", got)
	}
	m = pressKeys(t, m, "j", "j")
	if got := m.tree.CursorPath(); got != "/app/blob" {
		t.Fatalf("j j: %s", got)
	}
	m = pressKeys(t, m, "k")
	if got := m.tree.CursorPath(); got != "/app" {
		t.Fatalf("k: %s", got)
	}
	// l on an open directory steps into it.
	m = pressKeys(t, m, "l")
	if got := m.tree.CursorPath(); got != "/app/blob" {
		t.Fatalf("l on open dir: %s", got)
	}
	// h on a leaf goes to the parent; h on an open dir collapses it.
	m = pressKeys(t, m, "h")
	if got := m.tree.CursorPath(); got != "/app" {
		t.Fatalf("h on leaf: %s", got)
	}
	rows := m.tree.Len()
	m = pressKeys(t, m, "h")
	if _, open := m.tree.Dir("/app"); m.tree.Len() >= rows || open {
		t.Fatalf("h on open dir did not collapse: %d rows (was %d)", m.tree.Len(), rows)
	}
	// space opens it again (marked loading until the children arrive).
	m = pressKeys(t, m, "space")
	if d, open := m.tree.Dir("/app"); !open || d.Loaded {
		t.Fatalf("space did not start an expand: %+v", d)
	}
	m = fixture(t, 100, 30, "dark")
	m = pressKeys(t, m, "G")
	if m.tree.Cursor() != m.tree.Len()-1 {
		t.Fatalf("G: cursor %d of %d", m.tree.Cursor(), m.tree.Len())
	}
	if m.tree.Offset()+m.tree.Rows() < m.tree.Len() {
		t.Fatalf("G: last row not on screen (offset %d)", m.tree.Offset())
	}
	m = pressKeys(t, m, "g")
	if m.tree.Cursor() != 0 || m.tree.Offset() != 0 {
		t.Fatalf("g: cursor %d offset %d", m.tree.Cursor(), m.tree.Offset())
	}
	m = pressKeys(t, m, "pgdown")
	if m.tree.Cursor() != m.tree.Rows()-1 {
		t.Fatalf("pgdown: cursor %d, want %d", m.tree.Cursor(), m.tree.Rows()-1)
	}
	// The detail pane follows the cursor.
	if m.detail.Path() != m.tree.CursorPath() {
		t.Fatalf("detail shows %s, cursor on %s", m.detail.Path(), m.tree.CursorPath())
	}
	// tab focuses the detail pane, where j scrolls instead of moving.
	cur := m.tree.Cursor()
	m = pressKeys(t, cdLocal(t, m, "/app/config"), "tab")
	cur = m.tree.Cursor()
	m = pressKeys(t, m, "j")
	if m.tree.Cursor() != cur || m.detail.Scroll() != 1 {
		t.Fatalf("detail j: cursor %d→%d scroll %d", cur, m.tree.Cursor(), m.detail.Scroll())
	}
	// v cycles the data viewer.
	m = pressKeys(t, m, "v")
	if m.detail.Viewer() != detail.ViewerText {
		t.Fatalf("v: viewer %v", m.detail.Viewer())
	}
}

func TestFilter(t *testing.T) {
	m := cdLocal(t, fixture(t, 100, 30, "dark"), "/app/services/svc-05")
	all := m.tree.Len()
	m = pressKeys(t, m, "/")
	if m.mode != modeFilter || m.tree.Filter().Dir != "/app/services" {
		t.Fatalf("/ opened mode %v on %q", m.mode, m.tree.Filter().Dir)
	}
	m = typeKeys(t, m, "s3")
	if m.tree.Filter().Shown != 13 { // svc-03, svc-13, svc-23 (fuzzy) and svc-30..39
		t.Fatalf("s3 kept %d of 40", m.tree.Filter().Shown)
	}
	if m.tree.Len() >= all {
		t.Fatalf("filter kept %d of %d rows", m.tree.Len(), all)
	}
	services, _ := m.tree.Dir("/app/services")
	match, fuzzy := tree.FilterMatch("s3", services.Names)
	if !fuzzy || !m.tree.Filter().Fuzzy {
		t.Fatalf("s3: no name contains it, so the filter is fuzzy (%v, %v)", fuzzy, m.tree.Filter().Fuzzy)
	}
	for i := range m.tree.Len() {
		if dir, name := m.tree.Row(i); dir == "/app/services" && !match(name) {
			t.Fatalf("row %s does not match", name)
		}
	}
	if !strings.HasPrefix(m.tree.CursorPath(), "/app/services/") {
		t.Fatalf("cursor left the filtered directory: %s", m.tree.CursorPath())
	}
	// Fuzzy: "s39" matches svc-39 only.
	m = typeKeys(t, m, "9")
	if m.tree.Filter().Shown != 1 || m.tree.CursorPath() != "/app/services/svc-39" {
		t.Fatalf("fuzzy: shown %d, cursor %s", m.tree.Filter().Shown, m.tree.CursorPath())
	}
	// enter keeps the filter, esc (in normal mode) clears it.
	m = pressKeys(t, m, "enter")
	if m.mode != modeNormal || m.tree.Filter().Query == "" {
		t.Fatalf("enter: mode %v query %q", m.mode, m.tree.Filter().Query)
	}
	m = pressKeys(t, m, "esc")
	if m.tree.Filter().Query != "" || m.tree.Len() != all {
		t.Fatalf("esc: query %q, %d rows", m.tree.Filter().Query, m.tree.Len())
	}
	if m.tree.CursorPath() != "/app/services/svc-39" {
		t.Fatalf("cursor moved on clear: %s", m.tree.CursorPath())
	}
}

func TestCommandLine(t *testing.T) {
	m := fixture(t, 100, 30, "dark")
	m = pressKeys(t, m, ":")
	if m.mode != modeCommand {
		t.Fatalf("mode %v", m.mode)
	}
	m = typeKeys(t, m, "q")
	nm, cmd := m.Update(keyMsg("enter"))
	m = nm.(Model)
	if !isQuit(cmd) {
		t.Fatalf(":q did not quit")
	}
	m = typeKeys(t, pressKeys(t, m, ":"), "theme light")
	m = pressKeys(t, m, "enter")
	if m.st.Palette.Name != "light" {
		t.Fatalf(":theme light: palette %s", m.st.Palette.Name)
	}
	m = typeKeys(t, pressKeys(t, m, ":"), "theme purple")
	m = pressKeys(t, m, "enter")
	if m.status.Level != common.LevelErr || !strings.Contains(m.status.Text, "unknown theme") {
		t.Fatalf(":theme purple: %q", m.status.Text)
	}
	m = typeKeys(t, pressKeys(t, m, ":"), "frobnicate")
	m = pressKeys(t, m, "enter")
	if !strings.Contains(m.status.Text, "Unknown command") {
		t.Fatalf("unknown: %q", m.status.Text)
	}
	// esc leaves without running anything.
	m = typeKeys(t, pressKeys(t, m, ":"), "q")
	nm, cmd = m.Update(keyMsg("esc"))
	m = nm.(Model)
	if m.mode != modeNormal || isQuit(cmd) {
		t.Fatalf("esc: mode %v", m.mode)
	}
	if got := common.CleanPath("app//locks/"); got != "/app/locks" {
		t.Fatalf("cleanPath: %s", got)
	}
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	msg := cmd()
	if _, ok := msg.(tea.QuitMsg); ok {
		return true
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if isQuit(c) {
				return true
			}
		}
	}
	return false
}

func TestDialogs(t *testing.T) {
	m := cdLocal(t, fixture(t, 100, 30, "dark"), "/app/config")
	m = pressKeys(t, m, "d")
	if del, ok := m.dialogs.Front().(*dialog.DeleteNode); m.mode != modeDialog || !ok || del.Version() != 2 {
		t.Fatalf("d: mode %v dialog %+v", m.mode, m.dialogs.Front())
	}
	m = pressKeys(t, m, "n")
	if m.mode != modeNormal || m.dialogs.Len() != 0 {
		t.Fatalf("n did not cancel")
	}
	// A node with children asks for the recursive delete, confirmed by name.
	m = pressKeys(t, cdLocal(t, m, "/app/services"), "d")
	tree, ok := m.dialogs.Front().(*dialog.DeleteTreeForm)
	if !ok {
		t.Fatalf("d on a directory: %+v", m.dialogs.Front())
	}
	m = typeKeys(t, m, "wrong")
	m = pressKeys(t, m, "enter")
	if m.dialogs.Front() != tree || tree.Err() == "" {
		t.Fatalf("wrong name accepted")
	}
	m = pressKeys(t, m, "esc")
	if m.dialogs.Len() != 0 || !strings.Contains(m.status.Text, "nothing was changed") {
		t.Fatalf("esc: %q", m.status.Text)
	}
	// Create: name, data, ttl, type chooser.
	m = pressKeys(t, cdLocal(t, m, "/app"), "n")
	m = typeKeys(t, m, "flags")
	m = pressKeys(t, m, "tab")
	m = typeKeys(t, m, "on")
	m = pressKeys(t, m, "tab", "tab", "right", "right")
	create := m.dialogs.Front().(*dialog.CreateForm)
	if create.Type() != 2 || create.Value(0) != "flags" || create.Value(1) != "on" {
		t.Fatalf("create dialog: typ %d %q %q", create.Type(), create.Value(0), create.Value(1))
	}
	m = pressKeys(t, m, "esc")
	// Inline edit refuses binary data.
	m = pressKeys(t, cdLocal(t, m, "/app/blob"), "E")
	if m.dialogs.Len() != 0 || !strings.Contains(m.status.Text, "binary") {
		t.Fatalf("E on binary: %q", m.status.Text)
	}
	m = pressKeys(t, cdLocal(t, m, "/app/session"), "E")
	if edit, ok := m.dialogs.Front().(*dialog.EditForm); !ok || edit.Value(0) != "worker-7" {
		t.Fatalf("E: %+v", m.dialogs.Front())
	}
	m = pressKeys(t, m, "esc")
	// The root and /zookeeper cannot be deleted.
	m = pressKeys(t, cdLocal(t, m, "/"), "d")
	if m.dialogs.Len() != 0 {
		t.Fatalf("delete / offered")
	}
}

func TestReadOnly(t *testing.T) {
	m := New(Options{ReadOnly: true})
	m = step(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	fx := fixture(t, 100, 30, "dark")
	fx.readOnly = true
	fx = cdLocal(t, fx, "/app/config")
	for _, k := range []string{"n", "e", "E", "d", "D"} {
		fx = pressKeys(t, fx, k)
		if fx.mode == modeDialog || !strings.Contains(fx.status.Text, "Read-only") {
			t.Fatalf("%s in read-only: mode %v status %q", k, fx.mode, fx.status.Text)
		}
	}
	if strings.Contains(screen(fx), "new child") {
		t.Fatalf("read-only footer still offers editing")
	}
	if !strings.Contains(screen(fx), "read-only") {
		t.Fatalf("read-only not shown in the header")
	}
}

func TestStaleRepliesDropped(t *testing.T) {
	m := fixture(t, 100, 30, "dark")
	m.tree.StartLoad("/app/jobs")
	old := m.nextID("kids:/app/jobs")
	newer := m.nextID("kids:/app/jobs")
	m = step(t, m, childrenMsg{id: old, dir: tree.Listing{Path: "/app/jobs", Names: []string{"stale"}}})
	if dirLoaded(m, "/app/jobs") {
		t.Fatalf("stale children reply applied")
	}
	m = step(t, m, childrenMsg{id: newer, dir: tree.Listing{Path: "/app/jobs", Names: []string{"job-0000000001"}}})
	if d, _ := m.tree.Dir("/app/jobs"); !d.Loaded || len(d.Names) != 1 {
		t.Fatalf("current reply not applied: %+v", d)
	}
	// A select reply for a node the cursor left is dropped.
	m = cdLocal(t, m, "/app/config")
	id := m.reqs["select"]
	m = cdLocal(t, m, "/app/blob")
	m = step(t, m, selectMsg{id: id, node: common.Node{Path: "/app/config", HasStat: true, Data: []byte("x")}})
	if m.detail.Path() != "/app/blob" || string(m.detail.Node().Data) == "x" {
		t.Fatalf("stale select applied: %s %q", m.detail.Path(), m.detail.Node().Data)
	}
	// A version conflict says so in one sentence.
	m = step(t, m, mutationMsg{op: "edit", path: "/app/blob", err: zk.ErrBadVersion})
	if !strings.Contains(m.status.Text, "changed meanwhile") {
		t.Fatalf("bad version: %q", m.status.Text)
	}
}

func TestMouse(t *testing.T) {
	m := fixture(t, 100, 30, "dark")
	// Row 3 of the pane (y = bodyTop+1+3) is /app/config.
	m = step(t, m, tea.MouseClickMsg{X: 5, Y: bodyTop + 1 + 3, Button: tea.MouseLeft})
	if got := m.tree.CursorPath(); got != "/app/config" {
		t.Fatalf("click: %s", got)
	}
	m = step(t, m, tea.MouseWheelMsg{X: 5, Y: 10, Button: tea.MouseWheelDown})
	if m.tree.Offset() != 3 {
		t.Fatalf("wheel: offset %d", m.tree.Offset())
	}
	m = step(t, m, tea.MouseClickMsg{X: 80, Y: 10, Button: tea.MouseLeft})
	if m.focus != focusDetail {
		t.Fatalf("click on detail did not focus it")
	}
}

func TestThemeFollowsBackground(t *testing.T) {
	m := fixture(t, 100, 30, "auto")
	if m.st.Palette.Name != "dark" {
		t.Fatalf("auto starts dark, got %s", m.st.Palette.Name)
	}
	m = step(t, m, tea.BackgroundColorMsg{Color: color.White})
	if m.st.Palette.Name != "light" {
		t.Fatalf("light background: %s", m.st.Palette.Name)
	}
	// An explicit theme is kept whatever the background.
	m = fixture(t, 100, 30, "dark")
	m = step(t, m, tea.BackgroundColorMsg{Color: color.White})
	if m.st.Palette.Name != "dark" {
		t.Fatalf("--theme dark overridden: %s", m.st.Palette.Name)
	}
	// The lock pane draws with the same (updated in place) styles.
	if m.lock.Styles() != m.st {
		t.Fatalf("lock pane does not share the styles")
	}
}

func TestContextCommandWithoutConfig(t *testing.T) {
	m := fixture(t, 100, 30, "dark")
	m = pressKeys(t, typeKeys(t, pressKeys(t, m, ":"), "ctx prod"), "enter")
	if !strings.Contains(m.status.Text, "not available") {
		t.Fatalf(":ctx without config: %q", m.status.Text)
	}
}

// TestStatusLifetime: at the smallest size, an informational status goes
// after a few seconds; an error stays, through ticks, until the next key
// (esc, or any other), which may set its own.
func TestStatusLifetime(t *testing.T) {
	m := fixture(t, minWidth, minHeight, "dark")
	status := func(m Model) string { return strings.Split(screen(m), "\n")[minHeight-2] }
	tick := func(m Model, d time.Duration) Model {
		m.now = func() time.Time { return fixedTime.Add(d) }
		return step(t, m, common.TickMsg{At: fixedTime.Add(d)})
	}
	m.setStatus(common.LevelOK, "Deleted /app/jobs.")
	if m = tick(m, 2*time.Second); !strings.Contains(status(m), "Deleted /app/jobs.") {
		t.Fatalf("the status went at once: %q", status(m))
	}
	if m = tick(m, common.InfoFor+time.Second); strings.TrimSpace(status(m)) != "" {
		t.Fatalf("an informational status stays: %q", status(m))
	}
	m.now = func() time.Time { return fixedTime }
	m.setStatus(common.LevelErr, "Could not delete /app/jobs: not empty.")
	if m = tick(m, 10*time.Minute); !strings.Contains(status(m), "Could not delete") {
		t.Fatalf("an error went without a key: %q", status(m))
	}
	if m = pressKeys(t, m, "j"); strings.Contains(status(m), "Could not delete") {
		t.Fatalf("an error stays after the next key: %q", status(m))
	}
	m.setStatus(common.LevelWarn, "Wait until the node is read, then try again.")
	if m = pressKeys(t, m, "esc"); strings.TrimSpace(status(m)) != "" {
		t.Fatalf("esc leaves the warning: %q", status(m))
	}
}

// TestEmptiedLockLosesTag: a lock directory whose last node went (read
// again with the visible rows) loses its lock tag: nothing says it is a
// lock any more.
func TestEmptiedLockLosesTag(t *testing.T) {
	m := cdLocal(t, fixture(t, 100, 30, "dark"), "/app/config")
	row := func(m Model) string {
		for _, l := range strings.Split(screen(m), "\n") {
			if strings.Contains(l, " locks ") {
				return l
			}
		}
		return ""
	}
	if !strings.Contains(row(m), "curator.mutex") {
		t.Fatalf("no tag before: %q", row(m))
	}
	m = step(t, m, statsMsg{paths: []string{"/app/locks"}, nodes: []common.Node{{Path: "/app/locks", HasStat: true, Stat: stat(6, 0, 0, 0)}}})
	if r := row(m); strings.Contains(r, "curator.mutex") || strings.Contains(r, "lock·") {
		t.Fatalf("the emptied lock directory keeps its tag: %q", r)
	}
}

// TestReadOnlyFooterOffersNoLockAction: in read-only mode the footer and
// the ? screen on a lock offer no take, release, revoke or force-delete
// (each is refused); a session and the problems are still offered.
func TestReadOnlyFooterOffersNoLockAction(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		m := fixture(t, 160, 30, "dark")
		m.readOnly = readOnly
		m = step(t, cdLocal(t, m, "/app/locks"), nil) // the lock pane shows
		footer := strings.Split(screen(m), "\n")[29]
		hm := pressKeys(t, m, "?")
		help := ansi.Strip(strings.Join(hm.helpLines(), "\n"))
		for _, action := range []string{"take lock", "release/stop waiting", "revoke holder", "force-delete node"} {
			if got := strings.Contains(footer, action) || strings.Contains(help, action); got == readOnly {
				t.Errorf("read-only %v: %q offered %v; footer %q", readOnly, action, got, footer)
			}
		}
		if !strings.Contains(footer, "its session") {
			t.Errorf("read-only %v: the footer lacks S: %q", readOnly, footer)
		}
	}
}

// TestNoticeUntilKey: Options.Notice (the demo saying zkscope stands in
// for a library) is the first status line and stays, through ticks,
// until a key is pressed.
func TestNoticeUntilKey(t *testing.T) {
	const notice = "Demo: kazoo not installed here, so zkscope processes write kazoo's format on kazoo-lock."
	m := New(Options{Theme: "dark", Notice: notice})
	m.now = func() time.Time { return fixedTime.Add(time.Hour) }
	m = step(t, m, tea.WindowSizeMsg{Width: minWidth, Height: minHeight})
	m = step(t, m, common.TickMsg{At: fixedTime.Add(time.Hour)})
	if got := strings.Split(screen(m), "\n")[minHeight-2]; !strings.Contains(got, "Demo: kazoo not installed") {
		t.Fatalf("the notice is not shown: %q", got)
	}
	if m = pressKeys(t, m, "j"); m.status.Text == notice {
		t.Fatal("the notice stays after a key")
	}
}
