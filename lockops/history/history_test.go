package history

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
)

// The replay's tests feed it events as the transaction log gives them
// (the real log is read in the command-line test, cmd/history/history_test.go).

var histT0 = time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)

// eventList is an EventSource over a slice.
type eventList []Event

func (l *eventList) Next() (Event, error) {
	if len(*l) == 0 {
		return Event{}, io.EOF
	}
	ev := (*l)[0]
	*l = (*l)[1:]
	return ev, nil
}

// script builds a log: each call one transaction, a zxid and a second
// later than the last.
type script struct {
	evs  []Event
	zxid int64
}

func (s *script) add(ev Event) *script {
	s.zxid++
	ev.Zxid, ev.Time, ev.SessionKnown = s.zxid, histT0.Add(time.Duration(s.zxid)*time.Second), true
	s.evs = append(s.evs, ev)
	return s
}

func kazooNode(dir string, seq int) string {
	return fmt.Sprintf("%s/%032x__lock__%010d", dir, seq+1, seq)
}

// contend: sessions 1..n open (timeout 4s) and queue on dir in order.
func (s *script) contend(dir string, n int) {
	for i := 1; i <= n; i++ {
		s.add(Event{Kind: EventSessionCreate, Session: int64(i), Timeout: 4 * time.Second})
	}
	for i := 1; i <= n; i++ {
		s.add(Event{Kind: EventCreate, Session: int64(i), Cxid: 1, Path: kazooNode(dir, i-1), Owner: int64(i), Data: []byte(fmt.Sprint("c", i))})
	}
}

func replayScript(t *testing.T, s *script, o Options) Report {
	t.Helper()
	l := eventList(s.evs)
	r, err := ReplayAll(&l, "/app", Point{}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Report(o)
}

// TestReplayEnds: how each tenure ends, who held in which order, and the
// waits behind each holder.
func TestReplayEnds(t *testing.T) {
	dir := "/app/locks/deploy"
	s := &script{}
	s.contend(dir, 5)
	s.add(Event{Kind: EventDelete, Session: 1, Cxid: 2, Path: kazooNode(dir, 0)})                    // released
	s.add(Event{Kind: EventSessionClose, Session: 2, Cxid: 0})                                       // expired
	s.add(Event{Kind: EventDelete, Session: 9, Cxid: 7, Path: kazooNode(dir, 2)})                    // force-deleted
	s.add(Event{Kind: EventSessionClose, Session: 4, Cxid: 3, Deletes: []string{kazooNode(dir, 3)}}) // closed
	rep := replayScript(t, s, Options{WaitedLongerThan: 3900 * time.Millisecond})
	if len(rep.Locks) != 1 || rep.Locks[0].Kind != lockops.KindKazooLock {
		t.Fatalf("locks: %+v", rep.Locks)
	}
	h := rep.Locks[0]
	var ends []EndKind
	for _, tn := range h.Tenures {
		ends = append(ends, tn.End)
		if tn.Held.IsZero() {
			t.Errorf("%s never held", tn.Node)
		}
	}
	want := []EndKind{EndReleased, EndSessionExpired, EndForceDeleted, EndSessionClosed, EndPresent}
	if fmt.Sprint(ends) != fmt.Sprint(want) {
		t.Fatalf("ends %v, want %v", ends, want)
	}
	if tn := h.Tenures[1]; tn.SessionTimeout != 4*time.Second || tn.LastWrite.Zxid != 7 || tn.By != 2 {
		t.Errorf("expired tenure: %+v", tn)
	}
	if tn := h.Tenures[2]; tn.By != 9 {
		t.Errorf("force-delete by %x, want 9", tn.By)
	}
	// c2 arrived at zxid 7 and held from zxid 11: behind c1 (held 6..11)
	// from 7 to 11.
	if b := h.Behind[0]; len(b) != 4 || b[0].Tenure != 1 || b[0].For != 4*time.Second {
		t.Errorf("behind c1: %+v", b)
	}
	var kinds []lockops.ProblemKind
	for _, pr := range h.Problems {
		kinds = append(kinds, pr.Kind)
	}
	if got := fmt.Sprint(kinds); got != "[held-longer-than-usual holder-session-expired waited-too-long waited-too-long force-deleted waited-too-long waited-too-long]" {
		t.Errorf("problems %s", got)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rep, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"released at 03:00:11.000", "session expired at 03:00:12.000 (timeout 4s, last write 03:00:07.000, 5s before)",
		"force-deleted at 03:00:13.000 by session 0x9", "session closed by its client", "still holding", "behind #1: #2 waited 4s"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the table lacks %q:\n%s", s, b.String())
		}
	}
}

// TestReplayUsualHold: a hold far longer than the lock's usual one is
// flagged; the usual ones are not.
func TestReplayUsualHold(t *testing.T) {
	dir := "/app/locks/job"
	s := &script{}
	s.contend(dir, 1)
	for i := 0; i < 4; i++ { // four holds of 1s each (a create, then its delete)
		s.add(Event{Kind: EventDelete, Session: 1, Path: kazooNode(dir, i)})
		s.add(Event{Kind: EventCreate, Session: 1, Path: kazooNode(dir, i+1), Owner: 1})
	}
	s.zxid += 20 // 20 s of nothing: the last hold is long
	s.add(Event{Kind: EventDelete, Session: 1, Path: kazooNode(dir, 4)})
	h := replayScript(t, s, Options{}).Locks[0]
	if h.UsualHold != time.Second || len(h.Problems) != 1 || h.Problems[0].Kind != lockops.ProblemHeldLongerThanUsual || h.Problems[0].Node != kazooNode(dir, 4) {
		t.Fatalf("usual hold %s, problems %+v", h.UsualHold, h.Problems)
	}
}

// TestReplayAt: the queues at a point are what a read then would have
// decoded, and replaying stops there.
func TestReplayAt(t *testing.T) {
	dir := "/app/locks/deploy"
	s := &script{}
	s.contend(dir, 3)
	s.add(Event{Kind: EventDelete, Session: 1, Path: kazooNode(dir, 0)})
	for _, at := range []Point{{Zxid: 6}, {Time: histT0.Add(6500 * time.Millisecond)}} {
		l := eventList(s.evs)
		r, err := ReplayAll(&l, dir, at, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		qs := r.Queues()
		if len(qs) != 1 || len(qs[0].Participants) != 3 || qs[0].Participants[0].State != lockops.StateHolding || qs[0].Participants[2].Watches != kazooNode(dir, 1) {
			t.Fatalf("at %+v: %+v", at, qs)
		}
		if _, last, _ := r.Span(); last.Zxid != 6 {
			t.Fatalf("at %+v the replay went on to zxid %d", at, last.Zxid)
		}
	}
}

// TestRecordingRoundTrip: what a Recorder writes reads back as the same
// arrivals and departures.
func TestRecordingRoundTrip(t *testing.T) {
	dir := "/app/locks/deploy"
	q := func(n, from int) lockops.Queue {
		d := lockops.Dir{Path: dir}
		for i := from; i < n; i++ {
			d.Children = append(d.Children, lockops.Child{Name: kazooNode(dir, i)[len(dir)+1:], Owner: int64(i + 1), Czxid: int64(10 + i),
				Ctime: histT0.Add(time.Duration(i) * time.Second).UnixMilli(), Data: []byte{'c', byte('1' + i)}})
		}
		return lockops.Decode(d, lockops.DecodeOptions{})
	}
	var b bytes.Buffer
	rec, err := NewRecorder(&b, "/app", []string{"zk1:2181"}, histT0)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range []lockops.Queue{q(2, 0), q(3, 0), q(3, 1), {Path: dir}} {
		if err := rec.Observe(&st, int64(20+i), histT0.Add(time.Duration(10+i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	h, src, err := OpenRecording(&b)
	if err != nil || h.Root != "/app" || h.Servers[0] != "zk1:2181" {
		t.Fatalf("header %+v: %v", h, err)
	}
	r, err := ReplayAll(src, "/app", Point{}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lh := r.Report(Options{}).Locks[0]
	if len(lh.Tenures) != 3 || lh.Tenures[0].End != EndGone || string(lh.Tenures[2].Data) != "c3" || lh.Tenures[1].Held.Time != histT0.Add(12*time.Second) {
		t.Fatalf("tenures %+v", lh.Tenures)
	}
	if _, _, err := OpenRecording(strings.NewReader(`{"schema":1}`)); err == nil {
		t.Fatal("a locks --json document read as a recording")
	}
}

// BenchmarkReplayChurn replays a kazoo lock of n contenders: every
// contender queues, then each holder releases in turn (2n changes, each
// decoding the directory again).
func BenchmarkReplayChurn(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchReplayChurn(b, n) })
	}
}

func benchReplayChurn(b *testing.B, n int) {
	dir := "/app/locks/churn"
	s := &script{}
	for i := 0; i < n; i++ {
		s.add(Event{Kind: EventCreate, Session: int64(i + 1), Path: kazooNode(dir, i), Owner: int64(i + 1)})
	}
	for i := 0; i < n; i++ {
		s.add(Event{Kind: EventDelete, Session: int64(i + 1), Path: kazooNode(dir, i)})
	}
	b.ReportAllocs()
	for b.Loop() {
		l := eventList(s.evs)
		r, err := ReplayAll(&l, "/app", Point{}, ReplayOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if h := r.Report(Options{}).Locks[0]; len(h.Tenures) != n {
			b.Fatalf("%d tenures", len(h.Tenures))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n)/1e3, "µs/change")
}

// TestPickSnapshot: the snapshot a history starts from, given its logs'
// first zxid.
func TestPickSnapshot(t *testing.T) {
	snaps := map[int64]string{0x0: "snapshot.0", 0x20: "snapshot.20", 0x45: "snapshot.45", 0x100000003: "snapshot.100000003"}
	for _, c := range []struct {
		first int64
		want  string
		skip  int64
		note  bool
	}{
		{0x21, "snapshot.20", 0x20, false}, // taken at the roll: nothing missing
		{0x30, "snapshot.45", 0x45, true},  // logs before the oldest snapshot after them
		{0x100000001, "snapshot.100000003", 0x100000003, true},
		{0x200000001, "snapshot.100000003", 0x100000003, false}, // another epoch: nothing between
	} {
		snap, skip, note := pickSnapshot(c.first, snaps)
		if snap != c.want || skip != c.skip || (note != "") != c.note {
			t.Errorf("first %#x: %s, skip %#x, note %q", c.first, snap, skip, note)
		}
	}
}

// TestReplayCuratorSemaphore: a Curator SemaphoreV2's two directories are
// one lock, reported at the semaphore's path, as locks does.
func TestReplayCuratorSemaphore(t *testing.T) {
	s := &script{}
	sem := "/app/sem"
	for _, p := range []string{sem, sem + "/locks", sem + "/leases"} {
		s.add(Event{Kind: EventCreate, Path: p})
	}
	node := func(kind string, i int) string {
		return fmt.Sprintf("%s/%ss/_c_%08d-1111-2222-3333-444444444444-%s-%010d", sem, kind, i, kind, i)
	}
	for i := 0; i < 3; i++ { // each takes the mutex, makes its lease, lets the mutex go
		sid := int64(i + 1)
		s.add(Event{Kind: EventCreate, Session: sid, Owner: sid, Path: node("lock", i)})
		s.add(Event{Kind: EventCreate, Session: sid, Owner: sid, Path: node("lease", i)})
		if i < 2 {
			s.add(Event{Kind: EventDelete, Session: sid, Path: node("lock", i)})
		}
	}
	s.add(Event{Kind: EventDelete, Session: 1, Path: node("lease", 0)})
	l := eventList(s.evs)
	r, err := ReplayAll(&l, "/app", Point{}, ReplayOptions{MaxLeases: 2})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Report(Options{})
	if len(rep.Locks) != 1 || rep.Locks[0].Path != sem || rep.Locks[0].Kind != lockops.KindCuratorSemaphoreV2 || len(rep.Locks[0].Tenures) != 6 {
		t.Fatalf("locks: %+v", rep.Locks)
	}
	if tn := rep.Locks[0].Tenures[1]; tn.Node != node("lease", 0) || tn.End != EndReleased || tn.Held.IsZero() {
		t.Fatalf("the first lease: %+v", tn)
	}
}

// TestReplayTerminated: a close the server issued (cxid 0) for a session
// that wrote within its timeout is no expiry: it was terminated.
func TestReplayTerminated(t *testing.T) {
	dir := "/app/locks/deploy"
	s := &script{}
	s.contend(dir, 1)
	s.add(Event{Kind: EventActivity, Session: 1, Cxid: 2, Path: "/app/elsewhere"})
	s.add(Event{Kind: EventSessionClose, Session: 1, Cxid: 0})
	h := replayScript(t, s, Options{}).Locks[0]
	if tn := h.Tenures[0]; tn.End != EndSessionTerminated || len(h.Problems) != 1 || h.Problems[0].Kind != lockops.ProblemForceDeleted {
		t.Fatalf("tenure %+v, problems %+v", tn, h.Problems)
	}
}

// FuzzRecording: whatever a recording file holds, reading and replaying
// it never panics.
func FuzzRecording(f *testing.F) {
	var b bytes.Buffer
	rec, _ := NewRecorder(&b, "/app", []string{"zk1:2181"}, histT0)
	q := lockops.Decode(lockops.Dir{Path: "/app/l", Children: []lockops.Child{{Name: kazooNode("/app/l", 0)[7:], Owner: 1, Czxid: 3}, {Name: kazooNode("/app/l", 1)[7:], Owner: 2, Czxid: 4}}}, lockops.DecodeOptions{})
	rec.Observe(&q, 4, histT0)
	rec.Observe(&lockops.Queue{Path: "/app/l"}, 6, histT0.Add(time.Second))
	f.Add(b.Bytes())
	f.Add([]byte(`{"zkscope_recording":1}` + "\n" + `{"op":"gone","seen":"2026-11-23T03:00:00Z","path":"/"}`))
	var db bytes.Buffer // a database's: participants, not nodes
	dbRec, _ := NewDBRecorder(&db, "", []string{"db1:5432/orders"}, lockops.KindPostgresAdvisory, histT0)
	dbRec.Observe(dbQueueOf(dbPart(100, histT0, true, histT0), dbPart(200, histT0, false, histT0)), histT0)
	dbRec.Observe(dbQueueOf(dbPart(200, histT0, true, histT0)), histT0.Add(time.Second))
	f.Add(db.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		_, src, err := OpenRecording(bytes.NewReader(data))
		if err != nil {
			return
		}
		r, _ := ReplayAll(src, "/", Point{}, ReplayOptions{})
		r.Queues()
		var out bytes.Buffer
		rep := r.Report(Options{WaitedLongerThan: time.Second})
		WriteTable(&out, rep, nil)
		WriteJSON(&out, rep)
	})
}

// TestReplayHeldSince: the queues a history replays give a holder the
// moment it began to hold, from the source ("txnlog", "recording"), when
// it began after the history's start; one holding at the start (created
// by its first transaction, or in a recording's first read) is unknown.
func TestReplayHeldSince(t *testing.T) {
	dir := "/app/locks/deploy"
	s := &script{}
	s.add(Event{Kind: EventCreate, Session: 1, Path: kazooNode(dir, 0), Owner: 1}) // zxid 1: the start
	s.add(Event{Kind: EventCreate, Session: 2, Path: kazooNode(dir, 1), Owner: 2}) // 2: waits
	s.add(Event{Kind: EventDelete, Session: 1, Path: kazooNode(dir, 0)})           // 3: the second holds
	for _, c := range []struct {
		until Point
		since time.Time
	}{{Point{Zxid: 2}, time.Time{}}, {Point{}, histT0.Add(3 * time.Second)}} {
		l := eventList(s.evs)
		r, err := ReplayAll(&l, "/app", c.until, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		h := r.Queues()[0].Participants[0]
		if !h.HeldSince.Equal(c.since) || !h.HeldSince.IsZero() && h.HeldSource != lockops.HeldTxnlog {
			t.Errorf("until %+v: holder %s held since %v (%q), want %v", c.until, h.Name, h.HeldSince, h.HeldSource, c.since)
		}
	}

	// A recording: the holder of its first read is unknown, the next one
	// is known from the read that saw it holding.
	q := func(from int) lockops.Queue {
		d := lockops.Dir{Path: dir}
		for i := from; i < 2; i++ {
			d.Children = append(d.Children, lockops.Child{Name: kazooNode(dir, i)[len(dir)+1:], Owner: int64(i + 1), Czxid: int64(10 + i),
				Ctime: histT0.Add(time.Duration(i) * time.Second).UnixMilli()})
		}
		return lockops.Decode(d, lockops.DecodeOptions{})
	}
	var b bytes.Buffer
	rec, err := NewRecorder(&b, "/app", nil, histT0)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range []lockops.Queue{q(0), q(1)} {
		if err := rec.Observe(&st, int64(20+i), histT0.Add(time.Duration(10+i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	_, src, err := OpenRecording(&b)
	if err != nil {
		t.Fatal(err)
	}
	var states []LockState
	r, err := ReplayAll(src, "/app", Point{}, ReplayOptions{OnChange: func(at Moment, q *lockops.Queue) { states = append(states, LockState{At: at, Queue: q.Clone()}) }})
	if err != nil {
		t.Fatal(err)
	}
	if h := states[0].Queue.Participants[0]; !h.HeldSince.IsZero() {
		t.Errorf("the first read's holder held since %v", h.HeldSince)
	}
	if h := r.Queues()[0].Participants[0]; !h.HeldSince.Equal(histT0.Add(11*time.Second)) || h.HeldSource != lockops.HeldRecording {
		t.Errorf("the second holder held since %v (%q), want the read that saw it", h.HeldSince, h.HeldSource)
	}
}
