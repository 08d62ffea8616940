package locks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/dbview/dbtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// psqlLocksQuery is what an operator runs for the same answer as `zkscope
// locks --json`: every advisory lock joined with its backend, waiters' blockers,
// ordered as holders then waiters by wait start, as one JSON document.
const psqlLocksQuery = `SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT d.datname, l.classid, l.objid, l.objsubid, l.mode, l.granted, l.waitstart, l.pid,
         CASE WHEN l.granted THEN NULL ELSE pg_blocking_pids(l.pid) END AS blocked_by,
         a.usename, a.application_name, a.client_addr, a.client_port, a.state, a.query,
         a.backend_start, a.xact_start, a.state_change
  FROM pg_locks l LEFT JOIN pg_database d ON d.oid = l.database
       LEFT JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory'
  ORDER BY d.datname, l.classid, l.objid, l.objsubid, NOT l.granted, l.waitstart, l.pid) x`

// BenchmarkDBLocks10kVsPsql: 10,000 advisory locks held by 20 psycopg2
// clients (500 each) and 10 clients waiting on some of them; as whole
// processes alternated in the same run, `zkscope locks --json` and psql
// running psqlLocksQuery. Reports each one's median wall time and CPU
// time (the process's own user+system, from rusage; the server's work for
// either is not in it) and the ratio of wall times.
//
//	go test ./cmd/locks -run '^$' -bench DBLocks10kVsPsql -benchtime 10x
func BenchmarkDBLocks10kVsPsql(b *testing.B) {
	pg := dbtest.Server(b)
	// Benchmarks run more than once (b.N 1 first): each run its own clients.
	for _, q := range []string{"DROP DATABASE IF EXISTS bench10k WITH (FORCE)", "CREATE DATABASE bench10k"} {
		if _, err := pg.Psql(b.Context(), "postgres", q); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 20 {
		p := pg.Python(b, "bench10k", "session", fmt.Sprintf("SELECT min(pg_try_advisory_lock(g)::int) = 1 FROM generate_series(%d, %d) g", i*500+1, i*500+500), "holder")
		p.WaitHeld(b)
	}
	for i := range 10 {
		pg.Python(b, "bench10k", "session", fmt.Sprintf("SELECT pg_advisory_lock(%d)", i*500+1), "waiter")
	}
	bin := zktest.Zkscope(b)
	env := append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir(), "ZKSCOPE_SERVER=", "ZKSCOPE_CONTEXT=", "ZKSCOPE_AUTH=")
	zk := func() *exec.Cmd {
		c := exec.Command(bin, "-s", pg.URL("bench10k"), "locks", "--json")
		c.Env = env
		return c
	}
	psql := func() *exec.Cmd {
		return exec.Command(filepath.Join(pg.Bin, "psql"), "-X", "-At", "-d", pg.DSN("bench10k"), "-c", psqlLocksQuery)
	}
	count := func(out []byte) int { // zkscope: participants; psql: rows
		var doc struct {
			Locks []struct{ Participants []json.RawMessage }
		}
		if json.Unmarshal(out, &doc) == nil && doc.Locks != nil {
			n := 0
			for _, l := range doc.Locks {
				n += len(l.Participants)
			}
			return n
		}
		var rows []json.RawMessage
		json.Unmarshal(out, &rows)
		return len(rows)
	}
	var zkRuns, psqlRuns []run
	dbtest.WaitFor(b, "10 waiters queued", func(ctx context.Context) bool {
		n, _ := pg.Psql(ctx, "bench10k", "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
		return strings.TrimSpace(n) == "10"
	})
	for range 3 { // warm-up
		timed(b, zk(), count, 10010)
		timed(b, psql(), count, 10010)
	}
	load := uptime()
	b.ResetTimer()
	for range b.N {
		zkRuns = append(zkRuns, timed(b, zk(), count, 10010))
		psqlRuns = append(psqlRuns, timed(b, psql(), count, 10010))
	}
	b.StopTimer()
	z, p := medianRun(zkRuns), medianRun(psqlRuns)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(z.wall.Microseconds())/1000, "zkscope-ms/op")
	b.ReportMetric(float64(z.cpu.Microseconds())/1000, "zkscope-cpu-ms/op")
	b.ReportMetric(float64(p.wall.Microseconds())/1000, "psql-ms/op")
	b.ReportMetric(float64(p.cpu.Microseconds())/1000, "psql-cpu-ms/op")
	b.ReportMetric(float64(p.wall)/float64(z.wall), "x-psql-time")
	b.Logf("zkscope locks --json: %v (cpu %v); psql join: %v (cpu %v); %d runs each, alternated; load before: %s",
		z.wall.Round(time.Millisecond), z.cpu.Round(time.Millisecond), p.wall.Round(time.Millisecond), p.cpu.Round(time.Millisecond), b.N, load)
	b.Logf("load after: %s", uptime())
}

type run struct{ wall, cpu time.Duration }

// timed runs cmd, checks that its output lists want locks, and returns its
// wall and CPU time.
func timed(b *testing.B, cmd *exec.Cmd, count func([]byte) int, want int) run {
	b.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("%v: %v\n%s", cmd.Args[:3], err, errOut.String())
	}
	if n := count(out.Bytes()); n != want {
		b.Fatalf("%v listed %d, want %d", cmd.Args[:3], n, want)
	}
	return run{wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

func medianRun(rs []run) run {
	w := make([]time.Duration, len(rs))
	c := make([]time.Duration, len(rs))
	for i, r := range rs {
		w[i], c[i] = r.wall, r.cpu
	}
	slices.Sort(w)
	slices.Sort(c)
	return run{w[len(w)/2], c[len(c)/2]}
}

func uptime() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
