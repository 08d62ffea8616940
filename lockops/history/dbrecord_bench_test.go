package history

import (
	"bytes"
	"io"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
)

// cpuNow is the process's user+system CPU time so far.
func cpuNow(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// dbLocks10k is 10,000 advisory locks, each held by its own backend, the
// first n of them with a waiter; shift moves every holder on by one (the
// waiter of lock i holds it, and a new backend waits).
func dbLocks10k(shift int) []lockops.Queue {
	qs := make([]lockops.Queue, 10000)
	for i := range qs {
		key := strconv.Itoa(i + 1)
		h := dbPart(int64(100000+i+shift*20000), histT0, true, histT0)
		w := dbPart(int64(200000+i+shift*20000), histT0, false, histT0.Add(time.Second))
		h.Node, h.Name, w.Node, w.Name = key, key, key, key
		qs[i] = lockops.Queue{Path: "orders/" + key, Kind: lockops.KindPostgresAdvisory, Participants: []lockops.Participant{h, w}}
	}
	return qs
}

// BenchmarkDBRecord10k: `locks --watch --record` on a database's 10,000
// advisory locks (20,000 participants): what one read costs the recorder
// when nothing changed (every --interval), and when every lock changed
// hands (20,000 lines written); then the replay of that recording of 20
// reads. Reports the process's CPU time per read and per replayed line.
//
//	go test ./lockops/history -run '^$' -bench DBRecord10k -benchtime 10x -count 2
func BenchmarkDBRecord10k(b *testing.B) {
	same, next := dbLocks10k(0), dbLocks10k(1)
	b.Run("unchanged", func(b *testing.B) {
		rec, _ := NewDBRecorder(io.Discard, "", nil, lockops.KindPostgresAdvisory, histT0)
		rec.Observe(same, histT0)
		cpu := cpuNow(b)
		for i := 0; b.Loop(); i++ {
			rec.Observe(same, histT0.Add(time.Duration(i+1)*time.Second))
		}
		b.ReportMetric(float64((cpuNow(b)-cpu).Microseconds())/float64(b.N)/1e3, "cpu-ms/read")
	})
	b.Run("all-changed", func(b *testing.B) {
		rec, _ := NewDBRecorder(io.Discard, "", nil, lockops.KindPostgresAdvisory, histT0)
		rec.Observe(same, histT0)
		cpu := cpuNow(b)
		for i := 0; b.Loop(); i++ {
			qs := next
			if i%2 == 1 {
				qs = same
			}
			rec.Observe(qs, histT0.Add(time.Duration(i+1)*time.Second))
		}
		b.ReportMetric(float64((cpuNow(b)-cpu).Microseconds())/float64(b.N)/1e3, "cpu-ms/read")
	})
	b.Run("replay", func(b *testing.B) {
		var file []byte
		w := writerFunc(func(p []byte) (int, error) { file = append(file, p...); return len(p), nil })
		rec, _ := NewDBRecorder(w, "", nil, lockops.KindPostgresAdvisory, histT0)
		for i := range 20 {
			qs := next
			if i%2 == 0 {
				qs = same
			}
			rec.Observe(qs, histT0.Add(time.Duration(i)*time.Second))
		}
		lines := 0
		for _, c := range file {
			if c == '\n' {
				lines++
			}
		}
		cpu := cpuNow(b)
		for b.Loop() {
			_, src, err := OpenRecording(bytes.NewReader(file))
			if err != nil {
				b.Fatal(err)
			}
			r, err := ReplayAll(src, "", Point{}, ReplayOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if len(r.Report(Options{}).Locks) != 10000 {
				b.Fatal("not 10,000 locks")
			}
		}
		b.ReportMetric(float64((cpuNow(b)-cpu).Nanoseconds())/float64(b.N)/float64(lines)/1e3, "cpu-µs/line")
		b.ReportMetric(float64(lines), "lines")
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
