package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestEditedData(t *testing.T) {
	for _, tc := range []struct {
		name, orig, saved, want string
		changed                 bool
	}{
		{"unchanged", `{"a":1}`, `{"a":1}`, `{"a":1}`, false},
		{"the editor's final newline", `{"a":1}`, "{\"a\":1}\n", `{"a":1}`, false},
		{"a final newline kept", "x\n", "x\n", "x\n", false},
		{"a final newline removed", "x\n", "x", "x", true},
		{"changed", `{"a":1}`, "{\"a\":2}\n", `{"a":2}`, true},
		{"two newlines: one is data", "x", "x\n\n", "x\n", true},
		{"empty", "", "", "", false},
	} {
		got, changed, err := common.EditedData([]byte(tc.orig), []byte(tc.saved), false)
		if err != nil || string(got) != tc.want || changed != tc.changed {
			t.Errorf("%s: got %q changed=%v err=%v, want %q changed=%v", tc.name, got, changed, err, tc.want, tc.changed)
		}
	}
}

func TestHexDumpRoundTrip(t *testing.T) {
	for _, data := range [][]byte{nil, {0}, []byte("\x00\xffabc#:\n"), bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef, '#'}, 11)} {
		dump := common.HexDump("/x", data)
		got, err := common.ParseHexDump(dump)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip of %q: got %q, %v\n%s", data, got, err, dump)
		}
		// What an editor does to it on save: a final newline, CRLF.
		got, err = common.ParseHexDump(bytes.ReplaceAll(append(dump, '\n'), []byte("\n"), []byte("\r\n")))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip of %q with CRLF: got %q, %v", data, got, err)
		}
	}
	got, err := common.ParseHexDump([]byte("00 01\n0203 # comment\n10: ff\n"))
	if err != nil || !bytes.Equal(got, []byte{0, 1, 2, 3, 0xff}) {
		t.Fatalf("free spacing: %q, %v", got, err)
	}
	for _, bad := range []string{"0g", "abc", "00 1", "x: 00", ": 00", "00 -- 01"} {
		if _, err := common.ParseHexDump([]byte("# header\n" + bad + "\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q parsed (err %v), want an error naming line 2", bad, err)
		}
	}
	if _, changed, err := common.EditedData([]byte{0, 1}, []byte("00 zz\n"), true); err == nil || changed {
		t.Fatalf("a malformed dump was accepted (changed=%v)", changed)
	}
}

func TestEditSuffix(t *testing.T) {
	for p, want := range map[string]string{"/app/x.json": ".json", "/app/x": ".txt", "/a.b/c": ".txt", "/x.t-t": ".txt", "/x.": ".txt"} {
		if got := common.EditSuffix(p); got != want {
			t.Errorf("editSuffix(%s) = %s, want %s", p, got, want)
		}
	}
}

// editorScript writes an executable shell script standing in for the
// user's editor; it gets the temp file as $1.
func editorScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nset -e\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLiveEditInEditor runs `e` as the user does, in the whole program
// (teatest) against the real server, with stand-in editors: saving
// unchanged writes nothing (the version stays), a vi-like editor's final
// newline is not a change, a real change is written with the version
// checked, binary data round-trips through a hex dump, and a dump that
// does not parse is refused.
func TestLiveEditInEditor(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base)
	text := []byte(`{"replicas":3}`)
	bin := []byte{0x00, 0xff, 0x10, 'a', 'b', 'c'}
	liveCreate(t, c.Conn(), base+"/json", text, 0)
	liveCreate(t, c.Conn(), base+"/bin", bin, 0)

	// edit opens p, waits for its data (shown) in the detail pane, presses
	// e with editor and waits for a status line containing want; it
	// returns the final status.
	shown := map[string]string{base + "/json": `"replicas"`, base + "/bin": "00 ff 10 61"}
	edit := func(p, editor, want string) string {
		t.Helper()
		m := New(Options{Client: c, Start: p, Theme: "dark", Editor: editor})
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 40))
		defer tm.Quit()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(shown[p])) },
			teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
		tm.Send(tea.KeyPressMsg{Code: 'e', Text: "e"})
		// The editor is a process of its own: on a loaded machine its start
		// alone can take seconds.
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(want)) },
			teatest.WithDuration(60*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
		tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
		return tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model).status.Text
	}
	check := func(p string, data []byte, version int32) {
		t.Helper()
		got, st, err := c.Conn().Get(p)
		if err != nil || !bytes.Equal(got, data) || st.Version != version {
			t.Fatalf("%s holds %q at version %d (%v), want %q at version %d", p, got, st.Version, err, data, version)
		}
	}

	if s := edit(base+"/json", "true", "nothing written"); s != "No change: nothing written." {
		t.Errorf("status %q after saving unchanged", s)
	}
	check(base+"/json", text, 0)
	edit(base+"/json", editorScript(t, `printf '\n' >> "$1"`), "nothing written") // vi's final newline
	check(base+"/json", text, 0)
	edit(base+"/json", editorScript(t, `printf '{"replicas":4}\n' > "$1"`), "Saved")
	check(base+"/json", []byte(`{"replicas":4}`), 1)

	edit(base+"/bin", "true", "nothing written")
	check(base+"/bin", bin, 0)
	edit(base+"/bin", editorScript(t, `grep -q '^00000000: 00 ff 10 61 62 63 ' "$1"; sed -i '/^0/s/ ff / fe /' "$1"`), "Saved")
	check(base+"/bin", []byte{0x00, 0xfe, 0x10, 'a', 'b', 'c'}, 1)
	shown[base+"/bin"] = "00 fe 10 61"
	edit(base+"/bin", editorScript(t, `echo 'zz' >> "$1"`), "); nothing was written") // (an error: q clears it)
	check(base+"/bin", []byte{0x00, 0xfe, 0x10, 'a', 'b', 'c'}, 1)
}
