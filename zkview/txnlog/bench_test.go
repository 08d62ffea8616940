//go:build unix

package txnlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigFileSize is ZooKeeper's default preallocation: a busy server's log
// files are this size, their tails zero.
const bigFileSize = 64 << 20

// writeBigLogs writes log files of bigFileSize into dir until they hold
// at least total bytes: the seed entries over and over, each with the
// next zxid and its checksum recomputed, the rest of the last file zero
// as the server preallocates it. It returns the files' total size and
// the number of transactions.
func writeBigLogs(dir string, seed [][]byte, total int64) (int64, int64, error) {
	var size, txns int64
	zxid := int64(1)
	for i := 0; size < total; i++ {
		buf := make([]byte, 16, bigFileSize)
		copy(buf, "ZKLG\x00\x00\x00\x02")
		name := filepath.Join(dir, "log."+strconv.FormatInt(zxid, 16))
		for {
			e := seed[int(txns)%len(seed)]
			if len(buf)+len(e)+13 > bigFileSize-4096 {
				break
			}
			at := len(buf) + 12
			buf = binary.BigEndian.AppendUint64(buf, 0)
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(e)))
			buf = append(buf, e...)
			binary.BigEndian.PutUint64(buf[at+12:], uint64(zxid))
			binary.BigEndian.PutUint64(buf[at-12:], uint64(adler32.Checksum(buf[at:])))
			buf = append(buf, 'B')
			zxid++
			txns++
		}
		buf = buf[:bigFileSize]
		if err := os.WriteFile(name, buf, 0o644); err != nil {
			return 0, 0, err
		}
		size += int64(len(buf))
	}
	return size, txns, nil
}

// BenchmarkTxnLog1G reads 1 GiB of transaction log (16 files of 64 MiB,
// ZooKeeper's preallocation, made from the real server's entries of the
// test workload repeated with rising zxids and valid checksums) with the
// Reader three times, then dumps the same files with ZooKeeper's
// TxnLogToolkit (one JVM per file, its output counted and discarded), and
// reports both throughputs and their ratio, by wall clock (the Reader's
// median pass) and by CPU time (which a busy machine disturbs less). The
// toolkit takes minutes; run it alone:
//
//	go test ./zkview/txnlog -run '^$' -bench TxnLog1G -benchtime 1x -timeout 30m
func BenchmarkTxnLog1G(b *testing.B) {
	var seed [][]byte
	files, _ := filepath.Glob(filepath.Join(realLogs(b), "log.*"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		seed = append(seed, rawEntries(raw)...)
	}
	dir := b.TempDir()
	size, txns, err := writeBigLogs(dir, seed, 1<<30)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var walls, cpus []time.Duration
	for i := 0; i < 3*b.N; i++ {
		start, cpu := time.Now(), cpuTime()
		if n := readEvery(b, dir); n != txns {
			b.Fatalf("read %d transactions, wrote %d", n, txns)
		}
		walls, cpus = append(walls, time.Since(start)), append(cpus, cpuTime()-cpu)
	}
	b.StopTimer()
	slices.Sort(walls)
	slices.Sort(cpus)
	ours, oursCPU := walls[len(walls)/2], cpus[len(cpus)/2]
	theirs, theirsCPU, n := runToolkit(b, dir)
	if n != txns {
		b.Fatalf("TxnLogToolkit read %d transactions, wrote %d", n, txns)
	}
	mb := float64(size) / 1e6
	b.ReportMetric(mb/ours.Seconds(), "zkscope-MB/s")
	b.ReportMetric(mb/oursCPU.Seconds(), "zkscope-cpu-MB/s")
	b.ReportMetric(mb/theirs.Seconds(), "toolkit-MB/s")
	b.ReportMetric(mb/theirsCPU.Seconds(), "toolkit-cpu-MB/s")
	b.ReportMetric(theirs.Seconds()/ours.Seconds(), "x-faster")
	b.ReportMetric(theirsCPU.Seconds()/oursCPU.Seconds(), "x-less-cpu")
	b.Logf("%d files, %.0f MB, %d transactions: zkscope %v (passes %v, CPU %v), TxnLogToolkit %v (CPU %v)",
		size/bigFileSize, mb, txns, ours, walls, oursCPU, theirs, theirsCPU)
}

// cpuTime is the CPU time this process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readEvery reads every transaction of dir and returns how many there were.
func readEvery(b *testing.B, dir string) int64 {
	r, err := OpenDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var n, sink int64
	for {
		t, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		n++
		sink += int64(len(t.Path) + len(t.Data) + len(t.Ops))
	}
	if sink < 0 {
		b.Fatal("unreachable")
	}
	return n
}

// runToolkit dumps every log file of dir with TxnLogToolkit and returns
// the time it took, the CPU time it used and the transactions it counted.
func runToolkit(b *testing.B, dir string) (time.Duration, time.Duration, int64) {
	files, _ := filepath.Glob(filepath.Join(dir, "log.*"))
	var total, cpu time.Duration
	var txns int64
	for _, f := range files {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd, err := toolkitCommand(ctx, f)
		if err != nil {
			cancel()
			b.Fatal(err)
		}
		var tail tailWriter
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &tail, &stderr
		start := time.Now()
		err = cmd.Run()
		total += time.Since(start)
		cancel()
		if cmd.ProcessState != nil {
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		if err != nil {
			b.Fatalf("TxnLogToolkit %s: %v\n%s", f, err, stderr.String())
		}
		n, err := tail.count()
		if err != nil {
			b.Fatalf("TxnLogToolkit %s: %v", f, err)
		}
		txns += n
	}
	return total, cpu, txns
}

// tailWriter keeps the end of the toolkit's output, which says how many
// transactions it read.
type tailWriter struct{ last []byte }

func (w *tailWriter) Write(p []byte) (int, error) {
	w.last = append(w.last, p...)
	if len(w.last) > 4096 {
		w.last = append(w.last[:0], w.last[len(w.last)-256:]...)
	}
	return len(p), nil
}

func (w *tailWriter) count() (int64, error) {
	s := string(w.last)
	i := strings.LastIndex(s, "EOF reached after ")
	if i < 0 {
		return 0, fmt.Errorf("no final count in %q", s)
	}
	f := strings.Fields(s[i:])
	return strconv.ParseInt(f[3], 10, 64)
}

// BenchmarkReader64M reads one 64 MiB log file of the workload's entries
// repeated (as BenchmarkTxnLog1G makes them), without the toolkit: the
// quick figure for profiling the reader.
func BenchmarkReader64M(b *testing.B) {
	var seed [][]byte
	files, _ := filepath.Glob(filepath.Join(realLogs(b), "log.*"))
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		seed = append(seed, rawEntries(raw)...)
	}
	dir := b.TempDir()
	size, txns, err := writeBigLogs(dir, seed, bigFileSize)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n := readEvery(b, dir); n != txns {
			b.Fatalf("read %d transactions, wrote %d", n, txns)
		}
	}
}
