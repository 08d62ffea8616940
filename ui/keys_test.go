package ui

import (
	"strings"
	"testing"
)

// TestFilterSubstringFirst: a query some names contain keeps only those;
// fuzzy matching is the fallback when none does, and the title says so.
func TestFilterSubstringFirst(t *testing.T) {
	m := cdLocal(t, fixture(t, 100, 30, "dark"), "/app/services/svc-05")
	m = typeKeys(t, pressKeys(t, m, "/"), "-1")
	if m.tree.Filter().Shown != 10 || m.tree.Filter().Fuzzy { // svc-10 … svc-19, not svc-01/21/31
		t.Fatalf("-1 kept %d (fuzzy %v), want the 10 names containing it", m.tree.Filter().Shown, m.tree.Filter().Fuzzy)
	}
	if strings.Contains(screen(m), "fuzzy") {
		t.Fatal("title says fuzzy for a substring match")
	}
	m = typeKeys(t, pressKeys(t, m, "backspace", "backspace"), "s1")
	if !m.tree.Filter().Fuzzy || m.tree.Filter().Shown == 0 || !strings.Contains(screen(m), "fuzzy") {
		t.Fatalf("s1: fuzzy %v, kept %d; title:\n%s", m.tree.Filter().Fuzzy, m.tree.Filter().Shown, strings.SplitN(screen(m), "\n", 4)[2])
	}
}

// TestCommandCompletion: the `:` line completes commands, paths from the
// loaded directories (tab accepts) and theme names, without the server.
func TestCommandCompletion(t *testing.T) {
	m := fixture(t, 100, 30, "dark")
	m = typeKeys(t, pressKeys(t, m, ":"), "th")
	if got := m.input.AvailableSuggestions(); len(got) != 1 || got[0] != "theme " {
		t.Fatalf("th: suggestions %q", got)
	}
	m = pressKeys(t, m, "tab")
	m = typeKeys(t, m, "hi")
	m = pressKeys(t, m, "tab")
	if m.input.Value() != "theme high-contrast" {
		t.Fatalf("theme completion: %q", m.input.Value())
	}
	m = pressKeys(t, m, "esc")
	m = typeKeys(t, pressKeys(t, m, ":"), "cd /app/se")
	got := m.input.AvailableSuggestions()
	if len(got) != 2 || got[0] != "cd /app/services" || got[1] != "cd /app/session" {
		t.Fatalf("cd /app/se: suggestions %q", got)
	}
	// tab on an ambiguous prefix completes what they share and lists them.
	m = pressKeys(t, m, "tab")
	if m.input.Value() != "cd /app/se" || !strings.Contains(strings.Split(screen(m), "\n")[29], "services  session") {
		t.Fatalf("ambiguous tab: %q; candidates line %q", m.input.Value(), strings.Split(screen(m), "\n")[29])
	}
	m = typeKeys(t, m, "rvices/svc-3")
	if line := strings.Split(screen(m), "\n")[28]; !strings.Contains(line, ":cd /app/services/svc-30") {
		t.Fatalf("the first completion is not shown after the cursor: %q", line)
	}
	if n := len(m.input.AvailableSuggestions()); n != 10 {
		t.Fatalf("cd /app/services/svc-3: %d suggestions, want 10", n)
	}
	m = typeKeys(t, m, "9")
	m = pressKeys(t, m, "tab")
	if m.input.Value() != "cd /app/services/svc-39" {
		t.Fatalf("one candidate: tab gave %q", m.input.Value())
	}
	m = pressKeys(t, m, "enter")
	if m.mode != modeNormal {
		t.Fatalf("enter after completion: mode %v", m.mode)
	}
	// An unloaded directory offers nothing (no I/O to find out).
	m = typeKeys(t, pressKeys(t, m, ":"), "cd /zookeeper/q")
	if got := m.input.AvailableSuggestions(); len(got) != 0 {
		t.Fatalf("unloaded directory: %q", got)
	}
}

// TestYankPath: y copies the path under the cursor (a clipboard command)
// and says so.
func TestYankPath(t *testing.T) {
	m := cdLocal(t, fixture(t, 100, 30, "dark"), "/app/config")
	nm, cmd := m.Update(keyMsg("y"))
	m = nm.(Model)
	if cmd == nil || !strings.Contains(m.status.Text, "Copied /app/config") {
		t.Fatalf("y: cmd %v, status %q", cmd != nil, m.status.Text)
	}
}

// TestPromptOpensEmpty: the `/` filter and the `f` search open empty after
// a `:` line was typed and left: nothing of the `:` line's completion
// shows after what is typed, and tab does not paste it in.
func TestPromptOpensEmpty(t *testing.T) {
	m := fixture(t, minWidth, minHeight, "dark")
	m = pressKeys(t, typeKeys(t, pressKeys(t, m, ":"), "th"), "esc")
	prompt := func(m Model) string { return strings.TrimRight(strings.Split(screen(m), "\n")[minHeight-2], " ") }
	m = typeKeys(t, pressKeys(t, m, "/"), "x")
	if got := prompt(m); got != "/x" {
		t.Errorf("the / prompt after :th: %q, want %q", got, "/x")
	}
	if m = pressKeys(t, m, "tab"); m.input.Value() != "x" {
		t.Errorf("tab in the / prompt gave %q", m.input.Value())
	}
	m = pressKeys(t, m, "esc")
	m = pressKeys(t, typeKeys(t, pressKeys(t, m, ":"), "th"), "esc")
	m = pressKeys(t, m, "f")
	if got := prompt(m); strings.Contains(got, "theme") {
		t.Errorf("the find prompt after :th: %q", got)
	}
}
