package txnlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readAll reads every transaction of r (cloned) and the offset after each.
func readAll(t *testing.T, r *Reader) ([]Txn, []int64, error) {
	t.Helper()
	var txns []Txn
	var ends []int64
	for {
		txn, err := r.Next()
		if errors.Is(err, io.EOF) {
			return txns, ends, nil
		}
		if err != nil {
			return txns, ends, err
		}
		txns = append(txns, txn.Clone())
		_, off := r.File()
		ends = append(ends, off)
	}
}

// TestOpenDirReadsEveryFileInOrder reads the workload's data directory (and
// its version-2) as one stream: zxids rise by one from the first.
func TestOpenDirReadsEveryFileInOrder(t *testing.T) {
	dir := realLogs(t)
	for _, d := range []string{dir, filepath.Dir(dir)} {
		r, err := OpenDir(d)
		if err != nil {
			t.Fatal(err)
		}
		txns, _, err := readAll(t, r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(txns) < 200 {
			t.Fatalf("%s: %d transactions, want the whole workload", d, len(txns))
		}
		for i, txn := range txns {
			if txn.Zxid != int64(i+1) {
				t.Fatalf("%s: transaction %d has zxid %#x, want %#x", d, i, txn.Zxid, i+1)
			}
		}
		if f, off, ok := r.Truncated(); ok {
			t.Errorf("%s: a clean log reported truncated at %s:%d", d, f, off)
		}
	}
	if _, err := OpenDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no transaction log") {
		t.Errorf("an empty directory: %v", err)
	}
}

// TestCloneSharesNothing checks that cloned transactions survive the
// reader's reuse of its buffers: kept clones equal a second reading.
func TestCloneSharesNothing(t *testing.T) {
	dir := realLogs(t)
	r1, _ := OpenDir(dir)
	kept, _, err := readAll(t, r1)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := OpenDir(dir)
	again, _, err := readAll(t, r2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kept, again) {
		t.Fatal("transactions kept from one reading differ from a second reading")
	}
	var failed, multi int
	for _, txn := range kept {
		if txn.Op == OpMulti {
			multi++
			if txn.Failed() {
				failed++
			}
		}
	}
	if multi != 2 || failed != 1 {
		t.Errorf("want two multis, one failed; got %d and %d", multi, failed)
	}
}

// TestExpiredSessions tells the expired session's closeSession (and the
// ephemeral it deleted) from the ones the clients sent (go-zookeeper,
// kazoo), and reads the negotiated timeouts.
func TestExpiredSessions(t *testing.T) {
	r, err := OpenDir(realLogs(t))
	if err != nil {
		t.Fatal(err)
	}
	txns, _, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	timeouts := map[int64]int32{}
	var expired, closed []string
	for _, txn := range txns {
		switch {
		case txn.Op == OpCreateSession:
			timeouts[txn.Session] = txn.Timeout
		case txn.Expired():
			expired = append(expired, fmt.Sprint(timeouts[txn.Session], txn.Deletes))
		case txn.Op == OpCloseSession:
			closed = append(closed, fmt.Sprint(txn.Deletes))
		}
	}
	if want := []string{"1000 [/w/exp]"}; !slices.Equal(expired, want) {
		t.Errorf("expired sessions: %q, want %q", expired, want)
	}
	if len(closed) < 2 || !slices.Contains(closed, "[/w/k/eph]") {
		t.Errorf("sessions the clients closed: %q", closed)
	}
}

// TestFromSkipsWhatTheSnapshotHolds starts after a snapshot's zxid: the
// files before it are not opened and the first transaction is the next.
func TestFromSkipsWhatTheSnapshotHolds(t *testing.T) {
	dir := realLogs(t)
	snap, err := LatestSnapshot(dir, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	zxid, _ := FileZxid(snap, "snapshot")
	r, _ := OpenDir(dir)
	r.From(zxid)
	first, err := r.Next()
	if err != nil || first.Zxid != zxid+1 {
		t.Fatalf("after From(%#x): zxid %#x, %v", zxid, first.Zxid, err)
	}
	// The file holding zxid+1: the last one named at or below it.
	files, _ := filepath.Glob(filepath.Join(dir, "log.*"))
	var want int64
	for _, f := range files {
		if z, _ := FileZxid(f, "log"); z <= zxid+1 && z > want {
			want = z
		}
	}
	if f, _ := r.File(); filepath.Base(f) != "log."+strconv.FormatInt(want, 16) {
		t.Errorf("reading %s after the snapshot at %#x, want log.%x", f, zxid, want)
	}
}

// firstLog copies the workload's first log file into a temp dir and
// returns the copy, its transactions and each entry's end offset.
func firstLog(t *testing.T) (string, []Txn, []int64) {
	t.Helper()
	src := filepath.Join(realLogs(t), "log.1")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "log.1")
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenFiles(dst)
	txns, ends, err := readAll(t, r)
	if err != nil || len(txns) < 3 {
		t.Fatalf("read %s: %d transactions, %v", src, len(txns), err)
	}
	return dst, txns, ends
}

// TestTruncatedTailEndsCleanly cuts the last entry in several ways a
// stopped server leaves it: the reader stops before it, without error,
// and says where.
func TestTruncatedTailEndsCleanly(t *testing.T) {
	path, txns, ends := firstLog(t)
	orig, _ := os.ReadFile(path)
	n := len(txns)
	last := ends[n-2] // where the last entry starts
	for name, cut := range map[string]func() []byte{
		"cut in its checksum": func() []byte { return orig[:last+5] },
		"cut in its bytes":    func() []byte { return orig[:last+20] },
		"cut before its 'B'":  func() []byte { return orig[:ends[n-1]-1] },
		"zeros after its length": func() []byte {
			b := append([]byte(nil), orig...)
			clear(b[last+20 : ends[n-1]])
			return b
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, cut(), 0o644); err != nil {
				t.Fatal(err)
			}
			r, _ := OpenFiles(path)
			got, _, err := readAll(t, r)
			if err != nil {
				t.Fatalf("a truncated tail is not an error: %v", err)
			}
			if len(got) != n-1 {
				t.Fatalf("read %d transactions, want %d", len(got), n-1)
			}
			f, off, ok := r.Truncated()
			if !ok || f != path || off != last {
				t.Errorf("Truncated() = %s, %d, %t; want %s, %d, true", f, off, ok, path, last)
			}
		})
	}
}

// TestChecksumMismatchNamesFileAndOffset flips one byte of an entry.
func TestChecksumMismatchNamesFileAndOffset(t *testing.T) {
	path, txns, ends := firstLog(t)
	b, _ := os.ReadFile(path)
	b[ends[1]+30] ^= 0x55 // inside the third entry
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenFiles(path)
	got, _, err := readAll(t, r)
	if err == nil {
		t.Fatalf("read %d of %d transactions without error", len(got), len(txns))
	}
	want := path + " at offset " + strconv.FormatInt(ends[1], 10) + ": checksum mismatch"
	if !strings.Contains(err.Error(), want) || len(got) != 2 {
		t.Errorf("after %d transactions: %v; want %q after 2", len(got), err, want)
	}
}

// TestNotALog refuses a file without the magic and reads an empty one
// (cut before its header) as holding nothing.
func TestNotALog(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "log.5")
	os.WriteFile(bad, []byte("ZKSN\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00"), 0o644)
	r, _ := OpenFiles(bad)
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "not a ZooKeeper transaction log") {
		t.Errorf("a snapshot read as a log: %v", err)
	}
	empty := filepath.Join(dir, "log.6")
	os.WriteFile(empty, nil, 0o644)
	r, _ = OpenFiles(empty)
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("an empty log: %v", err)
	}
	if _, err := OpenFiles(filepath.Join(dir, "log.7")); err == nil {
		t.Error("a missing file opened")
	}
}

// TestOpenFilesSortsByZxid gives the files out of order.
func TestOpenFilesSortsByZxid(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(realLogs(t), "log.*"))
	rev := append([]string(nil), files...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	r, _ := OpenFiles(rev...)
	txns, _, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(txns); i++ {
		if txns[i].Zxid <= txns[i-1].Zxid {
			t.Fatalf("zxid %#x after %#x", txns[i].Zxid, txns[i-1].Zxid)
		}
	}
}

// FuzzReader: no input makes the readers panic, loop or allocate without
// bound, read as a log file, (past the checksums) as one entry, and as a
// snapshot. The seeds are a real log (testdata/log.seed, the start of a
// server's log.1), each of its entries, and a real snapshot
// (testdata/snapshot.seed, with sessions, ephemerals and a digest ACL).
func FuzzReader(f *testing.F) {
	f.Add([]byte("ZKLG\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00"))
	for _, name := range []string{"log.seed", "snapshot.seed"} {
		seed, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
		if name == "log.seed" {
			for _, e := range rawEntries(seed) {
				f.Add(e)
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		var st parseState
		st.parseEntry(b)
		path := filepath.Join(dir, "log.1")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenFiles(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for i := 0; i <= len(b); i++ {
			if _, err := r.Next(); err != nil {
				ReadSnapshot(path) // an error is fine; every node costs bytes
				return
			}
		}
		t.Fatal("more transactions than bytes")
	})
}

// rawEntries returns the bytes of each entry of a log file (between the
// length and the end-of-record byte), up to its zero padding.
func rawEntries(b []byte) [][]byte {
	var out [][]byte
	for off := 16; off+12 <= len(b); {
		n := int(int32(binary.BigEndian.Uint32(b[off+8:])))
		if n <= 0 || off+12+n+1 > len(b) {
			break
		}
		out = append(out, b[off+12:off+12+n])
		off += 12 + n + 1
	}
	return out
}

// appendEntry appends a log entry (checksum, length, bytes, 'B') for a
// setData of data at zxid.
func appendEntry(b []byte, zxid int64, data []byte) []byte {
	var e recordWriter
	e.i64(0x1234).i32(7).i64(zxid).i64(1_700_000_000_000).i32(int32(OpSetData))
	e.str("/big").buf(data).i32(3)
	b = binary.BigEndian.AppendUint64(b, uint64(adler32.Checksum(e.b)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(e.b)))
	return append(append(b, e.b...), 'B')
}

// TestEntriesBiggerThanTheBuffer reads entries larger than the reader's
// buffer between small ones, whole and cut.
func TestEntriesBiggerThanTheBuffer(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 3<<20)
	log := []byte("ZKLG\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00")
	log = appendEntry(log, 1, []byte("small"))
	log = appendEntry(log, 2, big)
	log = appendEntry(log, 3, []byte("after"))
	path := filepath.Join(t.TempDir(), "log.1")
	for _, cut := range []int{len(log), len(log) - 1<<20} {
		os.WriteFile(path, log[:cut], 0o644)
		r, _ := OpenFiles(path)
		txns, _, err := readAll(t, r)
		if err != nil {
			t.Fatal(err)
		}
		want := 3
		if cut < len(log) {
			want = 1
		}
		if len(txns) != want || !bytes.Equal(txns[0].Data, []byte("small")) ||
			want == 3 && (!bytes.Equal(txns[1].Data, big) || string(txns[2].Data) != "after" || txns[2].Zxid != 3) {
			t.Errorf("cut at %d of %d: read %d transactions, want %d", cut, len(log), len(txns), want)
		}
		if _, _, trunc := r.Truncated(); trunc != (cut < len(log)) {
			t.Errorf("cut at %d of %d: truncated %t", cut, len(log), trunc)
		}
	}
}
