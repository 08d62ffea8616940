package txnlog

import (
	"errors"
	"io"
)

// Reader streams the transactions of a series of log files in zxid order.
// It is not safe for concurrent use.
type Reader struct {
	paths []string
}

// OpenDir opens every log.* file in dir, or in dir/version-2 when dir is a
// server's dataLogDir, to be read in zxid order.
func OpenDir(dir string) (*Reader, error) {
	return nil, errors.New("txnlog: not implemented yet")
}

// OpenFiles opens the given log files, to be read in zxid order (sorted by
// the zxid in their names, log.<hex zxid>; otherwise in the order given).
func OpenFiles(paths ...string) (*Reader, error) {
	return nil, errors.New("txnlog: not implemented yet")
}

// Next returns the next transaction. It returns io.EOF at the clean end of
// the last file (the zero padding, the end of the file, or a truncated last
// entry). Slices in the returned Txn are valid until the next call to Next.
func (r *Reader) Next() (Txn, error) {
	return Txn{}, io.EOF
}

// Truncated reports the file and offset where a file ended with a partial
// entry (the server stopped while writing it), if one did so far.
func (r *Reader) Truncated() (file string, offset int64, ok bool) {
	return "", 0, false
}

// Close closes the file being read.
func (r *Reader) Close() error {
	return nil
}
