package lockpane

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLiveSessionHung: on the real server, a real kazoo client holds a
// lock and then only keeps its session alive (pings); the pane's
// verification, fed the servers' real answers as it reads them, finds its
// session answering only pings for longer than the threshold (lowered to
// 2 s here, a minute in the TUI) and the pane draws the session-hung line.
func TestLiveSessionHung(t *testing.T) {
	was := sessionHungAfter
	sessionHungAfter = 2 * time.Second
	t.Cleanup(func() { sessionHungAfter = was })
	c := liveClient(t)
	lock := zktest.Path(t) + "/job"
	kz := zktest.StartKazoo(t, zktest.Shared(t).ConnectString())
	kz.Acquire(t, "idle", "lock", lock)
	kz.Await(t, "idle", "acquired")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		pings diagnose.PingWatch
		v     verified
	)
	for {
		raw, err := scan.ReadDir(ctx, c, lock)
		if err != nil {
			t.Fatal(err)
		}
		ens := c.Introspect(ctx)
		v = verifyQueue(ctx, c, lockops.Decode(raw, lockops.DecodeOptions{}), ens, pings, ens.At)
		pings = v.pings
		if len(v.findings.sessions) > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no session-hung within 60 s; queue %+v", v.queue)
		}
		time.Sleep(500 * time.Millisecond) // the pane's next read, polling with a deadline
	}
	holder := v.queue.Participants[0]
	if f := v.findings.sessions[0]; len(v.findings.sessions) != 1 || f.Kind != lockops.ProblemSessionHung || f.Sessions[0] != holder.Session {
		t.Fatalf("session findings %+v, want session-hung of the holder %s", v.findings.sessions, lockops.FormatSession(holder.Session))
	}
	p := testPane("dark", 160, 30)
	p.findings = v.findings
	p.SetQueueAt(v.queue, time.Now())
	if out := paneScreen(p); !strings.Contains(out, "session-hung  session "+lockops.FormatSession(holder.Session)) {
		t.Errorf("no session-hung line:\n%s", out)
	}
}
