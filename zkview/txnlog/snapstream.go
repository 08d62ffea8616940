package txnlog

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The snapshot's jute fields, read from the stream with the running
// checksum kept. The first failure sticks (see err).

// snapErr is kept on the reader's first failure.
type snapErr struct{ err error }

func (s *SnapshotReader) err() error {
	if s.bad != nil {
		return s.bad.err
	}
	return nil
}

func (s *SnapshotReader) setErr(err error) {
	if s.bad == nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		s.bad = &snapErr{err}
	}
}

// read consumes n bytes; the slice is valid until the next read.
func (s *SnapshotReader) read(n int) []byte {
	if s.bad != nil {
		return nil
	}
	var p []byte
	if n <= s.br.Size() {
		var err error
		if p, err = s.br.Peek(n); err != nil {
			s.setErr(err)
			return nil
		}
		s.br.Discard(n)
	} else {
		if cap(s.big) < n {
			s.big = make([]byte, n)
		}
		p = s.big[:n]
		if _, err := io.ReadFull(s.br, p); err != nil {
			s.setErr(err)
			return nil
		}
	}
	s.sum.Write(p)
	s.off += int64(n)
	return p
}

func (s *SnapshotReader) int32() int32 {
	if p := s.read(4); p != nil {
		return int32(binary.BigEndian.Uint32(p))
	}
	return 0
}

func (s *SnapshotReader) int64() int64 {
	if p := s.read(8); p != nil {
		return int64(binary.BigEndian.Uint64(p))
	}
	return 0
}

// buffer reads a jute buffer or string (nil when null); valid until the
// next read.
func (s *SnapshotReader) buffer() []byte {
	n := s.int32()
	if n == -1 || s.bad != nil {
		return nil
	}
	if n < -1 || n > maxEntry {
		s.setErr(fmt.Errorf("bad length %d", n))
		return nil
	}
	return s.read(int(n))
}
