package diagnose

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/zkview"
)

// Session is one session the members report, joined with the lock nodes it
// owns: the rows of the session view and `zkscope sessions`.
type Session struct {
	ID int64
	// Client is its address ("" when no member lists its connection);
	// Member the member it is connected to ("" when none: disconnected,
	// or that member could not be asked).
	Client, Member string
	Timeout        time.Duration
	Established    time.Time // zero when not reported
	LastOp         string
	// LastResponse is the member's monotonic ms of its last answer (see
	// [fourlw.Conn.LastResponse]).
	LastResponse     int64
	Received, Sent   int64
	Queued           int64
	Ephemerals       []string // the caller's view of paths
	EphemeralsKnown  bool
	Holds, WaitsOn   []SessionLock
	Ours             bool // the asking client's own session
	ConnectedToSome  bool // some member lists its connection
	ConnectionsKnown bool // every member listed its connections
}

// SessionLock is a lock a session holds or waits on.
type SessionLock struct {
	Lock string       // the lock's path (as reported by locks)
	Kind lockops.Kind // its recipe
	Node string       // the session's node in it (WatchOnly: the node it watches)
	Mode lockops.Mode // exclusive, read, write, lease, leader
	// Since is the node's creation (for a holder: not when it began to
	// hold); zero for a WatchOnly wait (no node of its own, so no time
	// the servers keep).
	Since time.Time
	// WatchOnly: the session owns no node of the lock and waits by
	// watching the holder's (a plain ephemeral lock's or a Kafka/HDFS
	// leader node's candidates: see [lockops.Participant.WatcherOnly]).
	WatchOnly bool
}

// ScanSessions scans the locks at or below root (the single-node ones
// too: their waiters show only in the servers' watch lists), asks the
// members, and joins both ([JoinSessions]). When the scan fails the
// sessions come without their locks, with the scan's error (a scan cut
// short, [scan.ErrTruncated], with what it found).
func ScanSessions(ctx context.Context, c *zkview.Client, root string) ([]Session, *zkview.Ensemble, []lockops.Queue, error) {
	queues, err := scan.Scan(ctx, c, root, scan.Options{})
	if err != nil && !errors.Is(err, scan.ErrTruncated) {
		queues = nil
	}
	e := c.Introspect(ctx)
	if err == nil || errors.Is(err, scan.ErrTruncated) {
		var ferr error
		if queues, ferr = scan.FindEphemeralLocks(ctx, c, root, e, queues); ferr != nil {
			err = ferr
		}
	}
	ApplyEnsemble(e, queues)
	return JoinSessions(e, queues, c.SessionID()), e, queues, err
}

// JoinSessions lists every session e reports, joined with the lock nodes
// of queues (held and waited on), sorted by id. own is the asking
// client's session (0: none).
func JoinSessions(e *zkview.Ensemble, queues []lockops.Queue, own int64) []Session {
	byID := map[int64]*Session{}
	get := func(id int64) *Session {
		s := byID[id]
		if s == nil {
			s = &Session{ID: id, Ours: id == own && own != 0}
			byID[id] = s
		}
		return s
	}
	ids, _ := e.Sessions()
	for id := range ids {
		get(id)
	}
	known := e != nil && len(e.Members) > 0
	if e != nil {
		for _, m := range e.Members {
			if !m.ConnsKnown {
				known = false
			}
			for _, c := range m.Conns {
				if !c.HasSession {
					continue
				}
				s := get(c.SessionID)
				s.Client, s.Member, s.ConnectedToSome = c.Addr, m.Addr, true
				s.Timeout, s.Established, s.LastOp, s.LastResponse = c.Timeout, c.Established, c.LastOp, c.LastResponse
				s.Received, s.Sent, s.Queued = c.Recved, c.Sent, c.Queued
			}
			for id, addr := range m.Clients {
				if s := get(id); s.Client == "" {
					s.Client, s.Member, s.ConnectedToSome = addr, m.Addr, true
				}
			}
		}
	}
	for _, q := range queues {
		for _, p := range q.Participants {
			if !p.Ephemeral || p.Session == 0 {
				continue
			}
			s := get(p.Session)
			l := SessionLock{Lock: q.Path, Kind: q.Kind, Node: p.Node, Mode: p.Mode, Since: p.Ctime, WatchOnly: p.WatcherOnly}
			if p.WatcherOnly {
				l.Since = time.Time{}
			}
			if p.State == lockops.StateHolding {
				s.Holds = append(s.Holds, l)
			} else {
				s.WaitsOn = append(s.WaitsOn, l)
			}
		}
	}
	out := make([]Session, 0, len(byID))
	for _, s := range byID {
		s.ConnectionsKnown = known
		s.Ephemerals, s.EphemeralsKnown = e.Ephemerals(s.ID)
		slices.Sort(s.Ephemerals)
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Session) int { return cmp.Compare(uint64(a.ID), uint64(b.ID)) })
	return out
}

// SessionsOwningLocks keeps the sessions that hold or wait on a lock.
func SessionsOwningLocks(ss []Session) []Session {
	return slices.DeleteFunc(slices.Clone(ss), func(s Session) bool { return len(s.Holds)+len(s.WaitsOn) == 0 })
}
