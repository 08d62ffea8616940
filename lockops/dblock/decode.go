// Package dblock is database locks: PostgreSQL advisory locks and MySQL
// GET_LOCK as the recipe model's queues (decode.go), their diagnosis
// (diagnose.go), holding one on a connection of its own (held.go) and
// ending a holder's session after showing it (evict.go).
//
// It talks to the servers through dbview (of zkview it uses only the
// read-only refusal's error); it imports nothing of ui or cmd.
package dblock

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
)

// Kind is the recipe of a snapshot's locks.
func Kind(s *dbview.Snapshot) lockops.Kind { return KindOf(s.Kind) }

// KindOf is the recipe of the locks of a server of kind (dbview.KindPostgres,
// dbview.KindMySQL).
func KindOf(kind string) lockops.Kind {
	if kind == dbview.KindMySQL {
		return lockops.KindMySQLGetLock
	}
	return lockops.KindPostgresAdvisory
}

// LockPath is the path a lock is shown at: PostgreSQL's advisory locks
// belong to a database ("orders/42"); MySQL's names are the server's.
func LockPath(database, key string) string {
	if database == "" {
		return key
	}
	return database + "/" + key
}

// Decode turns a snapshot into one queue per lock, sorted by path:
// holders first (by when their session or transaction began, then id),
// then waiters in the order the server grants them (by when they began to
// wait, then id). A participant's node is the key, its session the
// backend's id, its client the backend's address; a waiter waits on the
// backends the server says block it.
func Decode(s *dbview.Snapshot) []lockops.Queue {
	kind := Kind(s)
	byPath := map[string]*lockops.Queue{}
	var order []string
	for i := range s.Rows {
		r := &s.Rows[i]
		if r.Key == "" { // a MySQL waiter whose lock the server does not name: UnknownWaiters
			continue
		}
		path := LockPath(r.Database, r.Key)
		q := byPath[path]
		if q == nil {
			q = &lockops.Queue{Path: path, Kind: kind, ReadAt: s.At}
			byPath[path] = q
			order = append(order, path)
		}
		q.Participants = append(q.Participants, participant(r, s.Backends))
	}
	out := make([]lockops.Queue, 0, len(order))
	for _, p := range order {
		q := byPath[p]
		orderQueue(q)
		out = append(out, *q)
	}
	slices.SortFunc(out, func(a, b lockops.Queue) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

func participant(r *dbview.LockRow, backends map[int64]dbview.Backend) lockops.Participant {
	b, known := backends[r.Holder]
	p := lockops.Participant{Node: r.Key, Name: r.Key, Session: r.Holder, Ephemeral: true, Client: b.ClientAddr,
		Mode: lockops.ModeExclusive, State: lockops.StateWaiting}
	if r.Mode == "shared" {
		p.Mode = lockops.ModeShared
	}
	d := &lockops.DBSession{Level: r.Level, Database: r.Database, User: b.User, Application: b.Application,
		State: b.State, Query: b.Query, BackendStart: b.BackendStart, XactStart: b.XactStart,
		StateChange: b.StateChange, WaitStart: r.WaitStart, BlockedBy: r.BlockedBy, NoBackend: !known}
	p.DB = d
	if r.Granted {
		p.State = lockops.StateHolding
		// When the hold began is not known: no earlier than the
		// transaction's start (a transaction-level lock) or the session's.
		p.Ctime = b.BackendStart
		if r.Level == lockops.LevelTransaction && !b.XactStart.IsZero() {
			p.Ctime = b.XactStart
		}
		return p
	}
	p.Ctime = cmp.Or(r.WaitStart, b.QueryStart)
	if len(r.BlockedBy) > 0 {
		ids := make([]string, len(r.BlockedBy))
		for i, id := range r.BlockedBy {
			ids[i] = strconv.FormatInt(id, 10)
		}
		p.Watches, p.WatchKind = strings.Join(ids, ","), lockops.WatchBackends
	}
	return p
}

// orderQueue sorts q's participants, holders first, and numbers them.
func orderQueue(q *lockops.Queue) {
	slices.SortStableFunc(q.Participants, func(a, b lockops.Participant) int {
		if a.State != b.State {
			if a.State == lockops.StateHolding {
				return -1
			}
			return 1
		}
		at, bt := a.Ctime, b.Ctime
		if a.State == lockops.StateWaiting {
			at, bt = a.DB.WaitStart, b.DB.WaitStart
		}
		return cmp.Or(compareTimes(at, bt), cmp.Compare(a.Session, b.Session))
	})
	for i := range q.Participants {
		q.Participants[i].Position = i
	}
}

// compareTimes orders known times first, earliest first.
func compareTimes(a, b time.Time) int {
	switch {
	case a.IsZero() && b.IsZero():
		return 0
	case a.IsZero():
		return 1
	case b.IsZero():
		return -1
	}
	return a.Compare(b)
}
