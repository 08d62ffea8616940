package history

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
)

// dbPart is a PostgreSQL participant of lock orders/42 as dblock decodes
// one: backend pid started at start, holding or waiting since ctime.
func dbPart(pid int64, start time.Time, holding bool, ctime time.Time) lockops.Participant {
	p := lockops.Participant{Node: "42", Name: "42", Session: pid, Ephemeral: true, Mode: lockops.ModeExclusive, State: lockops.StateWaiting,
		Client: "127.0.0.1:5000", Ctime: ctime, DB: &lockops.DBSession{Level: lockops.LevelSession, Database: "orders", User: "app", Application: "worker", BackendStart: start}}
	if holding {
		p.State = lockops.StateHolding
	} else {
		p.DB.WaitStart = ctime
	}
	return p
}

func dbQueueOf(ps ...lockops.Participant) []lockops.Queue {
	if len(ps) == 0 {
		return nil
	}
	return []lockops.Queue{{Path: "orders/42", Kind: lockops.KindPostgresAdvisory, Participants: ps}}
}

// recordDB records reads (one every second from histT0+10s) and replays
// the recording.
func recordDB(t *testing.T, root string, reads ...[]lockops.Queue) (*Replay, string) {
	t.Helper()
	var b bytes.Buffer
	rec, err := NewDBRecorder(&b, "", []string{"db1:5432/orders"}, lockops.KindPostgresAdvisory, histT0)
	if err != nil {
		t.Fatal(err)
	}
	for i, qs := range reads {
		if err := rec.Observe(qs, histT0.Add(time.Duration(10+i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	text := b.String()
	h, src, err := OpenRecording(&b)
	if err != nil || h.Recipe != lockops.KindPostgresAdvisory || h.Servers[0] != "db1:5432/orders" {
		t.Fatalf("header %+v: %v", h, err)
	}
	r, err := ReplayAll(src, root, Point{}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r, text
}

// TestDBRecordingGrantOrder: a database recording replays to its holders
// in the order the reads saw them granted, each waiter's arrival at the
// server's wait start, the waits behind each holder; a new backend given
// the same pid is another participant, and the queue at the end is what
// the last read showed.
func TestDBRecordingGrantOrder(t *testing.T) {
	sA, sB, sC := histT0.Add(-time.Hour), histT0.Add(-time.Minute), histT0.Add(-time.Second)
	sA2 := histT0.Add(12500 * time.Millisecond) // pid 100 again: a new backend
	a, b, c := dbPart(100, sA, true, sA), dbPart(200, sB, false, histT0.Add(9*time.Second)), dbPart(300, sC, false, histT0.Add(10500*time.Millisecond))
	bHeld, cHeld := dbPart(200, sB, true, sB), dbPart(300, sC, true, sC)
	a2 := dbPart(100, sA2, false, histT0.Add(12700*time.Millisecond))
	r, text := recordDB(t, "",
		dbQueueOf(a, b),      // 10s: a holds (before the recording), b waits since 9s
		dbQueueOf(a, b, c),   // 11s: c waits since 10.5s
		dbQueueOf(bHeld, c),  // 12s: a gone, b granted
		dbQueueOf(bHeld, c),  // 13s: no change: no line
		dbQueueOf(cHeld, a2), // 14s: b gone, c granted; pid 100 again, a new backend, waits
		dbQueueOf(),          // 15s: everyone gone
	)
	if n := strings.Count(text, "\n"); n != 1+2+1+2+3+2 {
		t.Errorf("%d lines:\n%s", n, text)
	}
	rep := r.Report(Options{WaitedLongerThan: 2 * time.Second})
	if len(rep.Locks) != 1 || rep.DB != lockops.KindPostgresAdvisory {
		t.Fatalf("report %+v", rep)
	}
	h := rep.Locks[0]
	type want struct {
		pid             int64
		arrived, heldAt time.Duration // from histT0; heldAt -1: never
		left            time.Duration
	}
	wants := []want{{100, 10 * time.Second, 10 * time.Second, 12 * time.Second}, {200, 9 * time.Second, 12 * time.Second, 14 * time.Second},
		{300, 10500 * time.Millisecond, 14 * time.Second, 15 * time.Second}, {100, 12700 * time.Millisecond, -1, 15 * time.Second}}
	if len(h.Tenures) != len(wants) {
		t.Fatalf("tenures %+v", h.Tenures)
	}
	for i, w := range wants {
		tn := h.Tenures[i]
		heldOK := w.heldAt < 0 && tn.Held.IsZero() || w.heldAt >= 0 && tn.Held.Time.Equal(histT0.Add(w.heldAt))
		if tn.Session != w.pid || !tn.Arrived.Time.Equal(histT0.Add(w.arrived)) || !heldOK || !tn.Left.Time.Equal(histT0.Add(w.left)) || tn.End != EndGone {
			t.Errorf("tenure %d: %+v, want %+v", i, tn, w)
		}
	}
	if beh := h.Behind[1]; len(beh) != 2 || beh[0].Tenure != 2 || beh[0].For != 2*time.Second || beh[1].Tenure != 3 || beh[1].For != 1300*time.Millisecond {
		t.Errorf("behind pid 200: %+v", beh)
	}
	var out bytes.Buffer
	if err := WriteTable(&out, rep, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"history of postgres.advisory locks from", "orders/42  postgres.advisory  4 backends, 3 held",
		"  1  by 03:00:10.000  03:00:10.000  ?", "pid 100", "pid 200", "app/worker 127.0.0.1:5000", "behind #2: #3 waited 2s, pid 100 waited 1.3s",
		"! waited-too-long 42: backend 200 waited 3s from 03:00:09.000"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
	out.Reset()
	if err := WriteJSON(&out, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		From  map[string]any
		Locks []struct{ Tenures []map[string]any }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	tn := doc.Locks[0].Tenures[1]
	if _, ok := doc.From["zxid"]; ok || tn["session"] != "200" || tn["client"] != "127.0.0.1:5000" || tn["level"] != "session" ||
		tn["backend"].(map[string]any)["backend_start"] != fmtStamp(sB) {
		t.Errorf("JSON: %s", out.String())
	}
}

// TestDBRecordingQueues: the queues a database recording replays to at a
// moment are what the read then showed, holders first, with the moment
// each began to hold after the first read; a key given as the root keeps
// only its lock.
func TestDBRecordingQueues(t *testing.T) {
	a, b := dbPart(100, histT0, true, histT0), dbPart(200, histT0, false, histT0.Add(5*time.Second))
	bHeld := dbPart(200, histT0, true, histT0)
	other := lockops.Queue{Path: "orders/7", Kind: lockops.KindPostgresAdvisory, Participants: []lockops.Participant{dbPart(300, histT0, true, histT0)}}
	other.Participants[0].Node, other.Participants[0].Name = "7", "7"
	r, _ := recordDB(t, "42", append(dbQueueOf(a, b), other), append(dbQueueOf(bHeld), other))
	qs := r.Queues()
	if len(qs) != 1 || qs[0].Path != "orders/42" || len(qs[0].Participants) != 1 {
		t.Fatalf("queues %+v", qs)
	}
	if p := qs[0].Participants[0]; p.Session != 200 || p.State != lockops.StateHolding || !p.HeldSince.Equal(histT0.Add(11*time.Second)) ||
		p.HeldSource != lockops.HeldRecording || p.DB == nil || p.DB.Database != "orders" {
		t.Errorf("participant %+v", p)
	}
}

// TestOldRecordingStillReplays: a ZooKeeper recording written before
// database recordings (schema 1, no recipe) replays as it did, and one
// written now has the same header; a newer schema is refused with what
// to do.
func TestOldRecordingStillReplays(t *testing.T) {
	old := `{"zkscope_recording":1,"root":"/app","servers":["zk1:2181"],"started":"2026-11-23T03:00:00Z"}
{"op":"create","seen":"2026-11-23T03:00:10Z","path":"` + kazooNode("/app/l", 0) + `","zxid":"0x3","ctime":"2026-11-23T03:00:01Z","owner":"0x1","data":"YQ=="}
{"op":"create","seen":"2026-11-23T03:00:10Z","path":"` + kazooNode("/app/l", 1) + `","zxid":"0x4","ctime":"2026-11-23T03:00:02Z","owner":"0x2","data":"Yg=="}
{"op":"gone","seen":"2026-11-23T03:00:12Z","path":"` + kazooNode("/app/l", 0) + `","zxid":"0x6"}
`
	h, src, err := OpenRecording(strings.NewReader(old))
	if err != nil || h.Recipe != "" {
		t.Fatalf("%+v: %v", h, err)
	}
	r, err := ReplayAll(src, "/app", Point{}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Report(Options{})
	if rep.DB != "" || len(rep.Locks) != 1 || len(rep.Locks[0].Tenures) != 2 || string(rep.Locks[0].Tenures[1].Data) != "b" || rep.Locks[0].Tenures[1].Held.Zxid != 6 {
		t.Fatalf("report %+v", rep)
	}
	if _, _, err := OpenRecording(strings.NewReader(`{"zkscope_recording":3}`)); err == nil || !strings.Contains(err.Error(), "upgrade zkscope") {
		t.Errorf("schema 3: %v", err)
	}
	var b bytes.Buffer // ZooKeeper's recordings are still written as schema 1: older zkscopes read them
	if _, err := NewRecorder(&b, "/app", nil, histT0); err != nil || !strings.HasPrefix(b.String(), `{"zkscope_recording":1,`) || strings.Contains(b.String(), "recipe") {
		t.Errorf("a ZooKeeper recording's header: %q %v", b.String(), err)
	}
}

// TestDBHistoryEscapesServerText: what a database server said (a key, an
// application name, a client, a mode in a recording) reaches the table
// only as printable text.
func TestDBHistoryEscapesServerText(t *testing.T) {
	p := dbPart(100, histT0, true, histT0)
	p.Name, p.Node, p.Mode, p.Client = "k\x1b[31m", "k\x1b[31m", "\x1b]0;x\x07", "\u009b2J"
	p.DB.Application, p.DB.User = "app\x1b[2J", "u\u202e"
	q := []lockops.Queue{{Path: "orders/\x1b[31m", Kind: lockops.KindPostgresAdvisory, Participants: []lockops.Participant{p}}}
	r, _ := recordDB(t, "", q, nil)
	var out bytes.Buffer
	if err := WriteTable(&out, r.Report(Options{}), nil); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.ContainsAny(s, "\x1b\x07\u009b\u202e") {
		t.Errorf("raw control text in the table: %q", s)
	}
}
