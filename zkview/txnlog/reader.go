package txnlog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// logMagic is "ZKLG", the first four bytes of every log file.
const logMagic = 0x5a4b4c47

// maxEntry bounds an entry's length: far above any server's jute.maxbuffer,
// so only a corrupt length exceeds it.
const maxEntry = 256 << 20

// bufSize is the read buffer: entries that fit are decoded in place.
const bufSize = 1 << 20

// Reader streams the transactions of a series of log files in zxid order.
// It is not safe for concurrent use.
type Reader struct {
	paths []string
	next  int // index in paths of the next file to open

	f      *os.File
	br     *bufio.Reader
	name   string // the file being read
	size   int64  // its size
	off    int64  // offset in it of the next entry
	big    []byte // an entry too big for br's buffer
	st     parseState
	trunc  bool
	tfile  string
	toff   int64
	closed bool
}

// OpenDir opens every log.* file in dir, or in dir/version-2 when dir is a
// server's dataLogDir, to be read in zxid order.
func OpenDir(dir string) (*Reader, error) {
	paths, err := listLogs(dir)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		sub := filepath.Join(dir, "version-2")
		if paths, err = listLogs(sub); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no transaction log (log.<zxid>) in %s or %s", dir, filepath.Join(dir, "version-2"))
	}
	return OpenFiles(paths...)
}

// listLogs returns the log.<hex zxid> files of dir.
func listLogs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read transaction log directory: %w", err)
	}
	var paths []string
	for _, e := range ents {
		if _, ok := FileZxid(e.Name(), "log"); ok && e.Type().IsRegular() {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return paths, nil
}

// FileZxid returns the zxid in a file name prefix.<hex zxid> (log.1a or
// snapshot.2f), and whether the name has that form.
func FileZxid(name, prefix string) (int64, bool) {
	hex, ok := strings.CutPrefix(filepath.Base(name), prefix+".")
	if !ok || hex == "" {
		return 0, false
	}
	z, err := strconv.ParseUint(hex, 16, 64)
	return int64(z), err == nil
}

// OpenFiles opens the given log files, to be read in zxid order (sorted by
// the zxid in their names, log.<hex zxid>; otherwise in the order given).
// Each file is opened when the previous one is done.
func OpenFiles(paths ...string) (*Reader, error) {
	var total int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("open transaction log: %w", err)
		}
		total += fi.Size()
	}
	ps := append([]string(nil), paths...)
	sort.SliceStable(ps, func(i, j int) bool {
		zi, oki := FileZxid(ps[i], "log")
		zj, okj := FileZxid(ps[j], "log")
		return oki && okj && uint64(zi) < uint64(zj)
	})
	// Small files (tests, a short log) need no megabyte of buffer.
	size := int(min(max(total, 4096), bufSize))
	return &Reader{paths: ps, br: bufio.NewReaderSize(nil, size)}, nil
}

// Next returns the next transaction. It returns io.EOF at the clean end of
// the last file (each file ends at its zero padding, at its end, or at a
// truncated last entry). Slices in the returned Txn are valid until the next
// call to Next. A checksum mismatch or an undecodable entry is an error
// naming the file and the entry's offset; reading further is not useful.
func (r *Reader) Next() (Txn, error) {
	for {
		if r.closed {
			return Txn{}, errors.New("txnlog: read after Close")
		}
		if r.f == nil {
			if r.next >= len(r.paths) {
				return Txn{}, io.EOF
			}
			if err := r.open(r.paths[r.next]); err != nil {
				return Txn{}, err
			}
			r.next++
			continue
		}
		b, ok, err := r.entry()
		if err != nil {
			return Txn{}, err
		}
		if !ok {
			r.closeFile()
			continue
		}
		t, err := r.st.parseEntry(b)
		if err != nil {
			return Txn{}, fmt.Errorf("%s at offset %d: %w", r.name, r.off, err)
		}
		r.off += int64(len(b)) + 13
		return t, nil
	}
}

// open opens a log file and checks its header.
func (r *Reader) open(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open transaction log: %w", err)
	}
	r.f, r.name, r.off = f, path, 16
	r.size = 0
	if fi, err := f.Stat(); err == nil {
		r.size = fi.Size()
	}
	r.br.Reset(f)
	h, err := r.br.Peek(16)
	if err != nil {
		// A file cut before its header is complete holds nothing.
		r.truncated(0)
		r.closeFile()
		return nil
	}
	if binary.BigEndian.Uint32(h) != logMagic {
		r.closeFile()
		return fmt.Errorf("%s is not a ZooKeeper transaction log (no ZKLG magic)", path)
	}
	if v := int32(binary.BigEndian.Uint32(h[4:])); v != 2 {
		r.closeFile()
		return fmt.Errorf("%s: unknown transaction log format version %d (want 2)", path, v)
	}
	r.br.Discard(16)
	return nil
}

// entry reads the next entry's bytes and checks its checksum; ok is false
// at the clean end of the file (zero padding, end, or a truncated entry).
func (r *Reader) entry() (b []byte, ok bool, err error) {
	h, err := r.br.Peek(12)
	if len(h) < 12 {
		if err != nil && err != io.EOF {
			return nil, false, fmt.Errorf("read %s: %w", r.name, err)
		}
		if !allZero(h) {
			r.truncated(r.off)
		}
		return nil, false, nil
	}
	sum := binary.BigEndian.Uint64(h)
	n := int32(binary.BigEndian.Uint32(h[8:]))
	if n == 0 {
		return nil, false, nil // the preallocated zero padding
	}
	if n < 0 || n > maxEntry {
		return nil, false, fmt.Errorf("%s at offset %d: bad entry length %d", r.name, r.off, n)
	}
	b, ok, err = r.body(int(n))
	if err != nil || !ok {
		return nil, false, err
	}
	if uint64(adler32.Checksum(b)) != sum {
		return nil, false, fmt.Errorf("%s at offset %d: checksum mismatch (file says %#x, entry has %#x)",
			r.name, r.off, sum, adler32.Checksum(b))
	}
	return b, true, nil
}

// body reads an entry's n bytes and its end-of-record byte, after the
// 12 bytes of checksum and length Peek has seen.
func (r *Reader) body(n int) ([]byte, bool, error) {
	total := 12 + n + 1
	if r.size > 0 && r.off+int64(total) > r.size {
		// Cut by the end of the file: read nothing more (and allocate
		// nothing for a corrupt length).
		return nil, false, r.short(nil)
	}
	var b []byte
	if total <= r.br.Size() {
		p, err := r.br.Peek(total)
		if len(p) < total {
			return nil, false, r.short(err)
		}
		b = p[12 : 12+n+1]
		r.br.Discard(total)
	} else {
		if cap(r.big) < n+1 {
			r.big = make([]byte, n+1)
		}
		b = r.big[:n+1]
		r.br.Discard(12)
		if got, err := io.ReadFull(r.br, b); err != nil {
			_ = got
			return nil, false, r.short(err)
		}
	}
	if b[n] != 'B' {
		// ZooKeeper's own reader calls this a partial last transaction.
		r.truncated(r.off)
		return nil, false, nil
	}
	return b[:n:n], true, nil
}

// short handles an entry cut by the end of the file.
func (r *Reader) short(err error) error {
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return fmt.Errorf("read %s: %w", r.name, err)
	}
	r.truncated(r.off)
	return nil
}

func (r *Reader) truncated(off int64) {
	if !r.trunc {
		r.trunc, r.tfile, r.toff = true, r.name, off
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Truncated reports the first file and offset where a file ended with a
// partial entry (the server stopped while writing it), if one did so far.
func (r *Reader) Truncated() (file string, offset int64, ok bool) {
	return r.tfile, r.toff, r.trunc
}

// File returns the file being read and the offset of the next entry in it
// (for messages).
func (r *Reader) File() (string, int64) { return r.name, r.off }

func (r *Reader) closeFile() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
	r.br.Reset(nil)
}

// Close closes the file being read. Next fails after Close.
func (r *Reader) Close() error {
	r.closed = true
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
