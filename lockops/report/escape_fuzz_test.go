package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/history"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
)

// serverTextSeeds are the fuzz targets' first inputs: issue 22's data,
// C1 controls (as runes and as bare bytes), bidi overrides and isolates,
// bytes that are not UTF-8, and a very long line.
func serverTextSeeds() []string {
	return []string{
		"hello \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m end",
		"\xc2\x9b2J", "\x9b31m", "\u202eevil\u202c \u2066x\u2069", "\xff\xfe\xe2\x82",
		"tab\tnew\nline\rcr\x7f", strings.Repeat("long-line-", 100),
	}
}

// FuzzTablesEscapeServerText writes every CLI table and preview over a
// name and data from a server: no line may hold a byte or rune a
// terminal acts on (the check: [printable.String] leaves every line as
// it is; the tables draw with spaces, doctor's lines with tabs between
// their fields). The JSON documents, through [printable.JSON] as the
// commands write them, must stay valid and hold none either.
func FuzzTablesEscapeServerText(f *testing.F) {
	for _, s := range serverTextSeeds() {
		f.Add(s, []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		now := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
		text := string(data)
		dir := "/app/" + name
		node := dir + "/" + name + "-lock-0000000001"
		q := lockops.Queue{Path: dir, Kind: lockops.KindCuratorMutex, Context: []lockops.Field{{Key: name, Value: text}},
			Participants: []lockops.Participant{
				{Node: node, Name: name + "-lock-0000000001", State: lockops.StateHolding, Mode: lockops.ModeExclusive, Session: 0x100, Ephemeral: true,
					Client: name, Data: data, Ctime: now.Add(-time.Minute), Payload: &lockops.Payload{Fields: []lockops.Field{{Key: name, Value: text}}}},
				{Node: dir + "/w", Name: "w", State: lockops.StateWaiting, Mode: lockops.ModeExclusive, Position: 1, Client: text, Data: data,
					Watches: node, WatchKind: lockops.WatchData, Ctime: now, Payload: &lockops.Payload{Err: text}},
				{Node: dir + "/c", Name: "c", State: lockops.StateWaiting, Mode: lockops.ModeExclusive, Position: 2, Watches: dir, WatchKind: lockops.WatchChildren},
			},
			Problems: []lockops.Problem{{Kind: "watch-missing", Node: node, Detail: name + " " + text}, {Kind: "stale", Detail: text}}}
		q.Others = []lockops.Queue{q}
		check := func(what, out string, seps string) {
			t.Helper()
			for _, l := range strings.FieldsFunc(out, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
				if !printable.Clean(l) {
					t.Fatalf("%s: a line holds text to escape: %q", what, l)
				}
			}
		}
		write := func(what string, fn func(*bytes.Buffer) error) string {
			t.Helper()
			var b bytes.Buffer
			if err := fn(&b); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			return b.String()
		}
		for _, full := range []bool{false, true} {
			check("locks", write("locks", func(b *bytes.Buffer) error {
				return report.WriteTableWith(b, []lockops.Queue{q}, now, report.TableOptions{FullNames: full, Footnote: text})
			}), "\n")
		}
		ss := []diagnose.Session{{ID: 0x100, Client: name, Member: text, LastOp: text, Timeout: time.Second, Established: now,
			Holds:   []diagnose.SessionLock{{Lock: dir, Node: node, Mode: lockops.ModeExclusive, Since: now}},
			WaitsOn: []diagnose.SessionLock{{Lock: dir, Node: text, Mode: lockops.ModeExclusive, WatchOnly: true}}}}
		check("sessions", write("sessions", func(b *bytes.Buffer) error { return report.WriteSessionsTable(b, ss, now) }), "\n")
		ens := report.EnsembleReport{Members: []report.MemberReport{{Addr: name, Role: text, Version: &text, Zxid: &name, Refused: []string{name}, Fix: &text, Error: &text}},
			Changes: []string{text}}
		check("ensemble", write("ensemble", func(b *bytes.Buffer) error { return report.WriteEnsembleTable(b, ens) }), "\n")
		fs := []diagnose.DoctorFinding{{Kind: "watch-missing", Lock: dir, Node: node, Detail: text}, {Kind: "owner-disconnected", Session: 0x100, Nodes: []string{node}, Detail: text}}
		check("doctor", write("doctor", func(b *bytes.Buffer) error { return report.WriteDoctorLines(b, fs) }), "\n\t")
		rep := history.Report{Root: dir, End: now, Locks: []history.LockHistory{{Path: dir, Kind: lockops.KindCuratorMutex,
			Tenures: []history.Tenure{{Node: node, Session: 0x100, Data: data, Arrived: history.Moment{Time: now}, Held: history.Moment{Zxid: 2, Time: now}},
				{Node: dir + "/" + text, Data: data, Payload: text, Arrived: history.Moment{Time: now}}},
			Behind: [][]history.Wait{{{Tenure: 1, For: time.Second}}, nil}, Problems: []lockops.Problem{{Kind: "stale", Node: node, Detail: text}}}}}
		check("history", write("history", func(b *bytes.Buffer) error { return history.WriteTable(b, rep, nil) }), "\n")
		pv := &evict.Preview{Node: node, LockPath: dir, Session: 0x100, Ephemeral: true, Client: name, Data: data, Recipe: string(q.Kind),
			NextHolders: []string{text}, Warnings: []string{text}}
		check("evict", evict.FormatPreview(pv), "\n")
		rpv := &redislock.EvictPreview{Key: name, Recipe: lockops.KindRedlock, Token: text, Holding: []string{name}, Others: []string{text}}
		check("evict redis", redislock.FormatEvictPreview(rpv), "\n")
		ev := &evict.SessionEviction{Session: 0x100, Under: dir, Nodes: []evict.SessionEvictNode{{Lock: dir, Node: node, Mode: lockops.ModeExclusive, Since: now}}}
		check("evict --session", write("evict --session", func(b *bytes.Buffer) error { return ev.Write(b, now) }), "\n")

		for what, doc := range map[string]string{
			"locks --json": write("locks --json", func(b *bytes.Buffer) error {
				return report.WriteJSON(printable.JSON(b), []string{name}, []lockops.Queue{q})
			}),
			"sessions --json": write("sessions --json", func(b *bytes.Buffer) error { return report.WriteSessionsJSON(printable.JSON(b), nil, dir, ss, now) }),
			"ensemble --json": write("ensemble --json", func(b *bytes.Buffer) error { return report.WriteEnsembleJSON(printable.JSON(b), ens) }),
			"doctor --json":   write("doctor --json", func(b *bytes.Buffer) error { return report.WriteDoctorJSON(printable.JSON(b), nil, dir, 1, fs) }),
			"history --json":  write("history --json", func(b *bytes.Buffer) error { return history.WriteJSON(printable.JSON(b), rep) }),
		} {
			if !json.Valid([]byte(doc)) {
				t.Fatalf("%s: not JSON: %q", what, doc)
			}
			check(what, doc, "\n")
		}
	})
}
