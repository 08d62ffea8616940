package dbview_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/dbview/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

func open(t *testing.T) (*dbtest.Postgres, *dbview.Client) {
	t.Helper()
	pg := dbtest.Server(t)
	cfg, err := dbview.ParseURL(pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := dbview.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return pg, c
}

// TestPostgresHoldReadTerminate: a session lock held by zkscope's own
// connection shows with its backend, a second holder waits (blocked by the
// first), a try fails busy, and Terminate ends only the holder it names.
func TestPostgresHoldReadTerminate(t *testing.T) {
	_, c := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := c.HoldSession(ctx, "42", dbview.HoldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.HoldSession(ctx, "42", dbview.HoldOptions{Try: true}); !errors.Is(err, dbview.ErrBusy) {
		t.Fatalf("try on a held lock: %v, want ErrBusy", err)
	}
	s2, err := c.HoldSession(ctx, "1/2", dbview.HoldOptions{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.Locks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]dbview.LockRow{}
	for _, r := range snap.Rows {
		byKey[r.Key] = r
	}
	r, ok := byKey["42"]
	if !ok || !r.Granted || r.Holder != s.ID || r.Mode != "exclusive" || r.Level != "session" || r.Database != "postgres" {
		t.Fatalf("lock 42: %+v (session %d); rows %+v", r, s.ID, snap.Rows)
	}
	r2 := byKey["1/2"]
	if r2.Key1 == nil || *r2.Key1 != 1 || *r2.Key2 != 2 || r2.Mode != "shared" || r2.Holder != s2.ID {
		t.Fatalf("lock 1/2: %+v", r2)
	}
	if b := snap.Backends[s.ID]; b.Application != "zkscope lock" || b.ClientAddr == "" || b.BackendStart.IsZero() {
		t.Fatalf("backend %d: %+v", s.ID, b)
	}
	// Terminate refuses a backend that does not hold the lock named.
	if ended, err := c.Terminate(ctx, s2.ID, dbview.TerminateIf{Key: "42", Database: "postgres", BackendStart: s2.BackendStart}); err != nil || ended {
		t.Fatalf("terminate a non-holder: %v %v", ended, err)
	}
	if ended, err := c.Terminate(ctx, s.ID, dbview.TerminateIf{Key: "42", Database: "postgres", BackendStart: s.BackendStart}); err != nil || !ended {
		t.Fatalf("terminate the holder: %v %v", ended, err)
	}
	select {
	case <-s.Lost():
	case <-ctx.Done():
		t.Fatal("the terminated holder's session was not reported lost")
	}
	if err := s.Release(ctx); err == nil {
		t.Fatal("releasing a lost lock succeeded")
	}
	if err := s2.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
