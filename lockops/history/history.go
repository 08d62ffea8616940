// Package history is lock history (`zkscope history`): the queues of the
// locks below a path replayed over time from a stream of changes —
// ZooKeeper's transaction log (txnlog.go, from the snapshot it starts at:
// snapshot.go) or a live recording (record.go) — with the same decoders
// as `zkscope locks` ([lockops.Decode]): one model of every recipe. The
// replay is in replay.go (the systems' elections: single.go), the report
// built from it in report.go and written in write.go.
//
// It imports the recipe model, report's encoder and zkview/txnlog; no
// package that acts on locks (take, evict, run, redislock), nor ui.
package history

import (
	"errors"
	"time"

	"github.com/zkscope/zkscope/lockops"
)

// EventKind is what one [Event] changed.
type EventKind uint8

// The changes a history is built from.
const (
	// EventCreate: a node created (Owner: its ephemeral owner, 0 for a
	// persistent node).
	EventCreate EventKind = iota + 1
	// EventDelete: a node deleted by Session's own request.
	EventDelete
	// EventSetData: a node's data replaced.
	EventSetData
	// EventGone: a node a live recording saw missing; who removed it, and
	// exactly when, is not known.
	EventGone
	// EventSessionCreate: a session opened with Timeout.
	EventSessionCreate
	// EventSessionClose: a session closed, its ephemeral nodes removed
	// (Deletes, when the log lists them; else every node the replay knows
	// it owns). Cxid 0 is a close the server issued (an expiry).
	EventSessionClose
	// EventActivity: any other request of Session written to the log
	// (a write elsewhere, a failed write): the session was alive then.
	EventActivity
	// EventDBWait: a database recording's participant (DB, backend
	// Session, lock Path) seen waiting for the first time.
	EventDBWait
	// EventDBHold: a database recording's participant seen holding:
	// granted since the read before, or holding when first seen. (Its
	// EventGone: no longer listed.)
	EventDBHold
)

// Event is one change, in the order the servers applied them.
// Several events of one transaction (a multi, or the nodes a session's
// close removes) share Zxid and are applied together.
type Event struct {
	Kind    EventKind
	Zxid    int64
	Time    time.Time // when the servers applied it (a recording: when it was seen)
	Session int64     // the session whose request it was (the transaction header's client id)
	Cxid    int32     // that request's number in its session (0: issued by the server)
	Path    string
	Data    []byte
	Owner   int64         // EventCreate: the node's ephemeral owner
	Ctime   time.Time     // EventCreate: the node's creation time (zero: Time)
	Timeout time.Duration // EventSessionCreate: the negotiated session timeout
	Deletes []string      // EventSessionClose: the ephemeral nodes the log says it removed
	// SessionKnown is false for a recording's EventGone: nobody's request
	// is known.
	SessionKnown bool
	// DB is a database recording's participant (Session is its backend's
	// id, Path its lock's); nil for ZooKeeper's events. The events of one
	// read share their Time, and are applied together.
	DB *DBParticipant
}

// EventSource hands out history events in the order they happened; Next
// returns io.EOF after the last.
type EventSource interface {
	Next() (Event, error)
}

// EndKind is how a participant's node left its queue.
type EndKind string

// How tenures end. Their values are part of `zkscope history --json`.
const (
	// EndPresent: the node was still there at the end of the history.
	EndPresent EndKind = "present"
	// EndReleased: deleted by its own session (the client released it).
	EndReleased EndKind = "released"
	// EndForceDeleted: deleted by another session (an operator, or a
	// client that thought the node was its own).
	EndForceDeleted EndKind = "force-deleted"
	// EndSessionClosed: removed by its session's close, requested by the
	// client itself (it closed its connection without releasing first).
	EndSessionClosed EndKind = "session-closed"
	// EndSessionExpired: removed by a close the server issued for its
	// session: the session expired (the client crashed, paused or lost
	// the network for longer than its timeout).
	EndSessionExpired EndKind = "session-expired"
	// EndSessionTerminated: removed by a close the server issued although
	// the session had written to the log within its timeout, so it cannot
	// have expired: the server ended it for another reason (an operator's
	// JMX terminateSession, say).
	EndSessionTerminated EndKind = "session-terminated"
	// EndGone: a live recording saw the node missing; its cause is not
	// known from a recording.
	EndGone EndKind = "gone"
)

// Moment is a point of a history: a zxid and its time.
type Moment struct {
	Zxid int64
	Time time.Time
}

// IsZero reports whether m was never set.
func (m Moment) IsZero() bool { return m.Zxid == 0 && m.Time.IsZero() }

// SessionInfo is what a history saw of one session.
type SessionInfo struct {
	ID      int64
	Timeout time.Duration // 0: its creation is not in the history
	Created Moment        // zero when not in the history
	// LastWrite is the session's last request written to the log before
	// its close (reads and pings never are): a lower bound of its last
	// sign of life.
	LastWrite Moment
	Closed    Moment
	// Expired: the close was issued by the server (cxid 0), not asked for
	// by the client.
	Expired bool
}

// Tenure is one node's life in a lock's queue: arrival, holding, end.
type Tenure struct {
	Node    string
	Session int64
	Mode    lockops.Mode
	Data    []byte // the node's data when it arrived (a client's id or address)
	// Payload is that data decoded in its system's format (a Kafka
	// controller's broker id, an active NameNode's host), "" for a lock.
	Payload string
	Arrived Moment
	// Held is when it became a holder (zero: it never held).
	Held Moment
	// Left is when its node left the queue (zero: still there, End is
	// EndPresent).
	Left Moment
	End  EndKind
	// By is the session that deleted it (force-deletes), or whose close
	// removed it.
	By int64
	// Session facts at the end (a session's close): its
	// timeout and last write seen in the log.
	SessionTimeout time.Duration
	LastWrite      Moment
	// DB is a database participant's backend as the server described it
	// when the participant arrived (Session is the backend's id, Node the
	// lock's key), Client its address; nil for ZooKeeper's.
	DB     *lockops.DBSession
	Client string
	// ArrivedSeen: a database participant first seen holding, so its
	// arrival is not known: Arrived is the read that saw it (it came at or
	// before then), and how long it waited is not known.
	ArrivedSeen bool
}

// HeldFor is how long t held the lock, up to end when it still holds.
func (t *Tenure) HeldFor(end time.Time) time.Duration {
	if t.Held.IsZero() {
		return 0
	}
	if t.Left.IsZero() {
		return end.Sub(t.Held.Time)
	}
	return t.Left.Time.Sub(t.Held.Time)
}

// Waited is how long t waited before holding (or before leaving, or until
// end when it still waits).
func (t *Tenure) Waited(end time.Time) time.Duration {
	switch {
	case !t.Held.IsZero():
		return t.Held.Time.Sub(t.Arrived.Time)
	case !t.Left.IsZero():
		return t.Left.Time.Sub(t.Arrived.Time)
	}
	return end.Sub(t.Arrived.Time)
}

// waitEnd is when t stopped waiting (end when it still waits).
func (t *Tenure) waitEnd(end time.Time) time.Time {
	switch {
	case !t.Held.IsZero():
		return t.Held.Time
	case !t.Left.IsZero():
		return t.Left.Time
	}
	return end
}

// holdEnd is when t stopped holding (end when it still holds).
func (t *Tenure) holdEnd(end time.Time) time.Time {
	if t.Left.IsZero() {
		return end
	}
	return t.Left.Time
}

// Point is a point of a history the user names: a time, or a zxid (the
// state right after that transaction).
type Point struct {
	Time time.Time
	Zxid int64
}

// IsZero reports whether p names no point.
func (p Point) IsZero() bool { return p.Zxid == 0 && p.Time.IsZero() }

// Passed reports whether ev comes after p: replaying up to p stops
// before it. The zero Point is never passed.
func (p Point) Passed(ev *Event) bool {
	switch {
	case p.Zxid != 0:
		return ev.Zxid > p.Zxid
	case !p.Time.IsZero():
		return ev.Time.After(p.Time)
	}
	return false
}

// ErrNoHistory is returned when a history source holds no event at all.
var ErrNoHistory = errors.New("no changes in the history")
