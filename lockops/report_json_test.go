package lockops

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// referenceParticipantJSON is what encoding/json writes for p: the
// hand-written encoder must match it byte for byte.
func referenceParticipantJSON(t testing.TB, p Participant) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(reportParticipant(p)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestParticipantJSONMatchesEncodingJSON(t *testing.T) {
	yes, no := true, false
	ps := []Participant{
		{Node: "/l/" + hexA + "__lock__0000000001", Seq: 1, HasSeq: true, Mode: ModeExclusive, State: StateHolding,
			Session: 0x1000086d7bb0000, Ephemeral: true, Data: []byte("worker-1"), Ctime: time.UnixMilli(1_700_000_000_123)},
		{Node: "/l/n", Mode: ModeRead, State: StateWaiting, Position: 7, Session: -1, Ephemeral: true,
			Client: "10.0.0.1:5000", Data: []byte{0xff, 0, 1}, Watches: "/l/m", WatchKind: WatchData, WatchObserved: &yes,
			ObservedWatches: []string{"/l/m", "/l/o"}},
		{Node: "/l/\"quote\\ \u2028 \u2029 <&>", Seq: -1, HasSeq: true, Mode: ModeLease, State: StateWaiting,
			Data: []byte("tab\t nl\n cr\r bs\b ff\f nul\x00 esc\x1b del\x7f é 漢 \u2028"), Watches: "/l", WatchKind: WatchChildren, WatchObserved: &no},
		{Node: "/l/bad\xffutf8", Data: []byte{}, Ctime: time.Unix(0, 0)},
	}
	var times ctimes // shared, as in a queue
	for _, p := range ps {
		got := appendParticipantJSON(nil, &p, &times)
		if want := referenceParticipantJSON(t, p); !bytes.Equal(got, want) {
			t.Errorf("participant JSON\n got %s\nwant %s", got, want)
		}
	}
}

func TestProblemJSONMatchesEncodingJSON(t *testing.T) {
	for _, pr := range []Problem{
		{Kind: "orphan", Node: "/l/n\"x", Detail: "session 0x1 owns 2 nodes\n<&>"},
		{Kind: "mixed-libraries", Detail: "curator \u2028 kazoo \xff"},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(reportProblem(pr, "/l"))
		if got := appendProblemJSON(nil, &pr, "/l"); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("problem JSON\n got %s\nwant %s", got, want.Bytes())
		}
	}
}

// FuzzParticipantJSON: for any node, data and client text the hand-written
// participant JSON is exactly encoding/json's.
func FuzzParticipantJSON(f *testing.F) {
	f.Add("/l/a\"b\\c", []byte("data\u2028\x01"), "10.0.0.1:1", int64(-5), int64(42))
	f.Add("/l/\xff\xfe", []byte{0xc3, 0x28}, "", int64(0), int64(0))
	f.Fuzz(func(t *testing.T, node string, data []byte, client string, seq, session int64) {
		p := Participant{Node: node, Seq: seq, HasSeq: seq >= 0, Mode: ModeWrite, State: StateWaiting,
			Session: session, Ephemeral: session != 0, Client: client, Data: data,
			Ctime: time.UnixMilli(seq % (1 << 40)), Watches: strings.ToUpper(node), WatchKind: WatchExists}
		got := appendParticipantJSON(nil, &p, &ctimes{})
		if want := referenceParticipantJSON(t, p); !bytes.Equal(got, want) {
			t.Fatalf("participant JSON\n got %s\nwant %s", got, want)
		}
	})
}

// The whole document is valid JSON and reads back as the Report the
// reflective encoder would have built.
func TestWriteJSONRoundTrip(t *testing.T) {
	d := dir("/l", kid(hexA+"__lock__0000000001", 1), kid(hexB+"__lock__0000000000", 2), kid("persist__lock__0000000002", 0))
	qs := []Queue{Decode(d, DecodeOptions{})}
	Diagnose(qs, DiagnoseOptions{})
	var buf bytes.Buffer
	if err := WriteJSON(&buf, []string{"127.0.0.1:2181"}, qs); err != nil {
		t.Fatal(err)
	}
	var got Report
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	want, _ := json.Marshal(NewReport([]string{"127.0.0.1:2181"}, qs))
	back, _ := json.Marshal(got)
	if !bytes.Equal(back, want) {
		t.Errorf("report\n got %s\nwant %s", back, want)
	}
}

// FuzzCtimes: times formatted one after the other through one cache read
// as the layout writes each.
func FuzzCtimes(f *testing.F) {
	f.Add(int64(1_700_000_000_123), int64(1_700_000_000_999), int64(1_700_000_001_000))
	f.Add(int64(-1), int64(-1000), int64(-1001))
	f.Add(int64(-62135596800000), int64(0), int64(253402300799999))
	f.Fuzz(func(t *testing.T, a, b, c int64) {
		var times ctimes
		for _, ms := range []int64{a, b, a, c} {
			ms %= 1 << 50 // within the years time.Time formats
			tm := time.UnixMilli(ms)
			got := string(times.append(nil, tm))
			if want := tm.UTC().Format("2006-01-02T15:04:05.000Z"); got != want {
				t.Fatalf("ctime %d: got %s, want %s", ms, got, want)
			}
		}
	})
}

// FuzzPlainPrefix: the word-at-a-time scan stops where the byte-at-a-time
// one does.
func FuzzPlainPrefix(f *testing.F) {
	f.Add("/zkscope-bench/hold/00000000000000000000000000000001__lock__0000000001")
	f.Add("abcdefg\"")
	f.Add("abcdefgh\x1fijk")
	f.Add("0123456789abcdef\x80")
	f.Fuzz(func(t *testing.T, s string) {
		want := 0
		for want < len(s) && s[want] >= 0x20 && s[want] < 0x80 && s[want] != '"' && s[want] != '\\' {
			want++
		}
		if got := plainPrefix(s); got != want {
			t.Fatalf("plainPrefix(%q) = %d, want %d", s, got, want)
		}
	})
}
