package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestEnsembleCommand runs `ensemble` and `ensemble --json` on the shared
// standalone server.
func TestEnsembleCommand(t *testing.T) {
	srv := zktest.Shared(t)
	out, err := cmdtest.Run(t, "-s", srv.ConnectString(), "ensemble")
	if err != nil {
		t.Fatal(err, out)
	}
	for _, want := range []string{"MEMBER", srv.Addrs()[0], "standalone", "3.", "4lw"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	t.Logf("\n%s", out)
	out, err = cmdtest.Run(t, "-s", srv.ConnectString(), "ensemble", "--json")
	if err != nil {
		t.Fatal(err, out)
	}
	var doc struct {
		Schema  int
		Leader  *string
		Members []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err, out)
	}
	if doc.Schema != 1 || doc.Leader == nil || len(doc.Members) != 1 || doc.Members[0]["role"] != "standalone" {
		t.Errorf("document: %s", out)
	}
	for _, k := range []string{"addr", "id", "role", "in_connect_string", "version", "zxid", "epoch", "latency_ms",
		"outstanding", "connections", "watches", "watches_all", "znodes", "data_size", "sessions", "answered", "refused", "fix", "error"} {
		if _, ok := doc.Members[0][k]; !ok {
			t.Errorf("member lacks %q", k)
		}
	}
}

// TestSessionsCommand lists a real kazoo holder and a real Curator waiter
// on one lock: both sessions with their client addresses, one holding and
// one waiting.
func TestSessionsCommand(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	lock := base + "/lock"
	kz := zktest.StartKazoo(t, srv.ConnectString())
	kz.Acquire(t, "holder", "lock", lock)
	kz.Await(t, "holder", "acquired")
	cu := zktest.StartCurator(t, srv.ConnectString())
	cu.Acquire(t, "waiter", "mutex", lock)

	doc := cmdtest.SessionsUntil(t, srv.ConnectString(), func(d cmdtest.SessionsDoc) bool { return len(d.Sessions) == 2 }, base, "--locks")
	if doc.Schema != 1 || len(doc.Sessions) != 2 {
		t.Fatalf("sessions: %+v", doc)
	}
	holds, waits := 0, 0
	for _, s := range doc.Sessions {
		if s.Client == nil || !strings.HasPrefix(*s.Client, "127.0.0.1:") || s.Member == nil || *s.Member != srv.Addrs()[0] {
			t.Errorf("session %s: client %v member %v", s.Session, s.Client, s.Member)
		}
		holds += len(s.Holds)
		waits += len(s.WaitsOn)
		for _, l := range append(s.Holds, s.WaitsOn...) {
			if l.Lock != lock {
				t.Errorf("session %s: lock %s", s.Session, l.Lock)
			}
		}
	}
	if holds != 1 || waits != 1 {
		t.Errorf("holds %d waits %d", holds, waits)
	}
	out, err := cmdtest.Run(t, "-s", srv.ConnectString(), "sessions", base, "--locks")
	if err != nil || !strings.Contains(out, "holds "+lock) || !strings.Contains(out, "waits on "+lock) {
		t.Errorf("table: %v\n%s", err, out)
	}
}

// noticeWriter collects what is written and closes seen once it contains
// want.
type noticeWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *noticeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// TestEnsembleInterval: `ensemble --interval` asks twice and reports what
// changed in between: a standalone server killed after the first answer
// went down, and the report says since when it compared.
func TestEnsembleInterval(t *testing.T) {
	zktest.Require(t)
	cl, err := zktest.Launch(1, zktest.Options{}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	addr := cl.Addrs()[0]
	root := cmdtest.NewRoot()
	var out bytes.Buffer
	errw := &noticeWriter{want: "asking again in", seen: make(chan struct{})}
	root.SetOut(&out)
	root.SetErr(errw)
	root.SetArgs([]string{"-s", addr, "ensemble", "--interval", "5s", "--json"})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(context.Background()) }()
	select {
	case <-errw.seen:
	case err := <-done:
		t.Fatalf("ended before asking twice: %v\n%s", err, errw.buf.String())
	case <-time.After(30 * time.Second):
		t.Fatal("no first answer within 30 s")
	}
	cl.Stop() // between the two answers
	if err := <-done; err != nil {
		t.Fatal(err, out.String())
	}
	var doc struct {
		Changes []string
		Since   *time.Time
		Members []struct{ Role string }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err, out.String())
	}
	if doc.Since == nil || len(doc.Members) != 1 || doc.Members[0].Role != "down" ||
		!slices.Contains(doc.Changes, addr+" went down") {
		t.Errorf("report after the member was killed: %s", out.String())
	}

	// Once: no comparison, since is null and changes empty.
	out2, err := cmdtest.Run(t, "-s", zktest.Shared(t).ConnectString(), "ensemble", "--json")
	if err != nil {
		t.Fatal(err, out2)
	}
	if !strings.Contains(out2, `"changes": []`) || !strings.Contains(out2, `"since": null`) {
		t.Errorf("one answer: %s", out2)
	}
}

func TestMain(m *testing.M) { zktest.Main(m) }
