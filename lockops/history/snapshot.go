package history

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zkscope/zkscope/zkview/txnlog"
)

// A server keeps its recent logs only (autopurge): the locks' state before
// the first log comes from a snapshot. TxnlogHistory starts the replay from
// the newest snapshot taken before the first log (the state then, then
// every logged change), or, when the logs start before the oldest snapshot
// (purging keeps the log a snapshot was taken in), from the oldest snapshot
// and the changes logged after it.

// Seeder is an [EventSource] that knows the state before its first event;
// [ReplayAll] seeds the replay with it first.
type Seeder interface {
	Seed(r *Replay) error
}

// TxnlogHistory is a data directory's history: its snapshot (if one is
// needed and present) and its transaction logs, as events.
type TxnlogHistory struct {
	r    *txnlog.Reader
	src  EventSource
	snap string // the snapshot seeding the replay ("": none)
	skip int64  // log transactions up to this zxid are in the snapshot
	// Note says where the history starts when that is not the first log's
	// first transaction.
	Note string
}

// OpenTxnlogHistory opens the logs in dir (a data directory, its
// version-2 directory or a dataLogDir) and picks the snapshot to start
// from, if the first log does not start the server's history.
func OpenTxnlogHistory(dir string) (*TxnlogHistory, error) {
	r, err := txnlog.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	h := &TxnlogHistory{r: r, src: TxnlogEvents(r)}
	first, snaps := filesOf(dir)
	if first <= 1 || len(snaps) == 0 {
		return h, nil
	}
	h.snap, h.skip, h.Note = pickSnapshot(first, snaps)
	return h, nil
}

// pickSnapshot picks the snapshot to start a history whose logs begin at
// zxid first: the oldest one taken at or after the last transaction
// before the logs (its state, then the logged changes after it: nothing
// missing), else the newest one before it (changes between it and the
// logs, if any, are missing). skip is the zxid up to which the logs are
// in the snapshot; note says what the history lacks, "" when nothing.
func pickSnapshot(first int64, snaps map[int64]string) (snap string, skip int64, note string) {
	after, afterZ := "", int64(math.MaxInt64)
	before, beforeZ := "", int64(math.MinInt64)
	for z, p := range snaps {
		if z >= first-1 && z < afterZ {
			after, afterZ = p, z
		}
		if z < first-1 && z > beforeZ {
			before, beforeZ = p, z
		}
	}
	switch {
	case after != "" && afterZ == first-1:
		return after, afterZ, ""
	case after != "":
		return after, afterZ, fmt.Sprintf("the logs start at zxid %s, before the oldest snapshot that follows them (%s): the history starts at that snapshot", FormatZxid(first), filepath.Base(after))
	case before != "" && beforeZ>>32 == (first-1)>>32:
		return before, beforeZ, fmt.Sprintf("the newest snapshot (%s) is older than the first log (zxid %s): changes between them, if any, are missing", filepath.Base(before), FormatZxid(first))
	}
	return before, beforeZ, ""
}

// filesOf is the first zxid of the logs in dir (or its version-2) and its
// snapshots by zxid.
func filesOf(dir string) (first int64, snaps map[int64]string) {
	first, snaps = math.MaxInt64, map[int64]string{}
	for _, d := range []string{dir, filepath.Join(dir, "version-2")} {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if z, ok := txnlog.FileZxid(e.Name(), "log"); ok && z < first {
				first = z
			}
			if z, ok := txnlog.FileZxid(strings.TrimSuffix(e.Name(), ".gz"), "snapshot"); ok {
				snaps[z] = filepath.Join(d, e.Name())
			}
		}
		if first != math.MaxInt64 {
			break
		}
	}
	return first, snaps
}

// Next implements [EventSource], leaving out what the snapshot holds.
func (h *TxnlogHistory) Next() (Event, error) {
	for {
		ev, err := h.src.Next()
		if err != nil || ev.Zxid > h.skip {
			return ev, err
		}
	}
}

// Seed implements [Seeder]: the snapshot's nodes at or below the replay's
// root and its sessions' timeouts, as of the snapshot (whose time is that
// of its latest change: snapshots carry no time of their own).
func (h *TxnlogHistory) Seed(r *Replay) error {
	if h.snap == "" {
		return nil
	}
	s, err := txnlog.OpenSnapshot(h.snap)
	if err != nil {
		return err
	}
	defer s.Close()
	for _, ss := range s.Sessions() {
		r.session(ss.ID).Timeout = time.Duration(ss.Timeout) * time.Millisecond
	}
	var latest int64
	for {
		n, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", h.snap, err)
		}
		latest = max(latest, n.Stat.Mtime, n.Stat.Ctime)
		if n.Path != "/" && r.below(n.Path) {
			r.create(Event{Path: n.Path, Data: n.Data, Owner: n.Owner(), Zxid: n.Stat.Czxid, Ctime: time.UnixMilli(n.Stat.Ctime).UTC()})
		}
	}
	r.at = Moment{Zxid: s.Zxid(), Time: time.UnixMilli(latest).UTC()}
	r.first = r.at
	r.flush()
	return nil
}

// Truncated reports where a log ended with a partly written entry.
func (h *TxnlogHistory) Truncated() (file string, offset int64, ok bool) { return h.r.Truncated() }

// Close closes the logs.
func (h *TxnlogHistory) Close() error { return h.r.Close() }
