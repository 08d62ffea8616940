package history

import (
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview/txnlog"
)

// Reading ZooKeeper's transaction log as history events.
//
// What the log tells about a session's end: a closeSession transaction's
// header carries the session's own id as its client id in both cases, so
// the id cannot tell them apart. Its cxid can: a client that closes its
// session sends closeSession as one of its own requests, numbered like
// the others (1 and up), while a close the server issues itself —
// ZooKeeperServer.expire → close(sessionId), on the leader (or the
// standalone server) when the session tracker finds the session idle for
// its timeout — is submitted with cxid 0 (read in Debian's 3.8.0:
// Request(null, sessionId, 0, closeSession)). So cxid 0 is an expiry — or
// a session an operator ended through JMX (ConnectionBean.terminateSession
// calls the same close): when the session wrote to the log within its
// timeout before such a close, it cannot have expired, and the replay
// says it was terminated. Any other cxid is the client's own close. The
// log holds writes only: a session's last write in the log is a lower bound of its
// last sign of life (its reads and pings never appear), so an expiry comes
// at least a timeout after the last ping the server got, which may be
// later than the last write shown.

// TxnlogEvents reads r's transactions as history events: creates (the
// ephemeral ones owned by the session that made them), deletes, data
// changes, the parts of a multi that succeeded, session opens and closes;
// everything else of a session as activity.
func TxnlogEvents(r *txnlog.Reader) EventSource { return &txnSource{r: r} }

type txnSource struct {
	r       *txnlog.Reader
	pending []Event // the rest of a multi
}

// Next implements [EventSource].
func (s *txnSource) Next() (Event, error) {
	if len(s.pending) > 0 {
		ev := s.pending[0]
		s.pending = s.pending[1:]
		return ev, nil
	}
	t, err := s.r.Next()
	if err != nil {
		return Event{}, err
	}
	if t.Op != txnlog.OpMulti || t.Failed() {
		return eventOfTxn(&t), nil
	}
	s.pending = s.pending[:0]
	for i := range t.Ops {
		s.pending = append(s.pending, eventOfTxn(&t.Ops[i]))
	}
	if len(s.pending) == 0 {
		return eventOfTxn(&t), nil // an empty multi: activity
	}
	ev := s.pending[0]
	s.pending = s.pending[1:]
	return ev, nil
}

// eventOfTxn is the event of one (non-multi, or sub-) transaction. Its
// slices share the reader's buffers: the replay copies what it keeps.
func eventOfTxn(t *txnlog.Txn) Event {
	ev := Event{Kind: EventActivity, Zxid: t.Zxid, Time: t.Time, Session: t.Session, Cxid: t.Cxid,
		Path: t.Path, SessionKnown: true}
	switch {
	case t.Op.IsCreate():
		ev.Kind, ev.Data = EventCreate, t.Data
		if t.Ephemeral {
			ev.Owner = t.Session
		}
	case t.Op == txnlog.OpDelete || t.Op == txnlog.OpDeleteContainer:
		ev.Kind = EventDelete
	case t.Op == txnlog.OpSetData:
		ev.Kind, ev.Data = EventSetData, t.Data
	case t.Op == txnlog.OpCreateSession:
		ev.Kind, ev.Timeout = EventSessionCreate, time.Duration(t.Timeout)*time.Millisecond
	case t.Op == txnlog.OpCloseSession:
		ev.Kind, ev.Deletes = EventSessionClose, t.Deletes
	case t.Op == txnlog.OpMulti:
		ev.Kind = EventActivity // failed as a whole: nothing applied
	}
	return ev
}

// OpenTxnlog opens the history in dir (a data directory, its version-2
// directory or a dataLogDir: its logs, and the snapshot before them when
// one is needed, [OpenTxnlogHistory]) as events; close closes them.
func OpenTxnlog(dir string) (src EventSource, close func() error, err error) {
	h, err := OpenTxnlogHistory(dir)
	if err != nil {
		return nil, nil, err
	}
	return h, h.Close, nil
}

// LockStates replays src and returns the states of the lock at lockPath,
// one per transaction that changed its queue, the newest max of them (0:
// all), oldest first.
func LockStates(src EventSource, lockPath string, max int, o ReplayOptions) ([]LockState, error) {
	var states []LockState
	o.OnChange = func(at Moment, q *lockops.Queue) {
		if q.Path != lockPath {
			return
		}
		if max > 0 && len(states) == max {
			copy(states, states[1:])
			states = states[:max-1]
		}
		states = append(states, LockState{At: at, Queue: q.Clone()})
	}
	_, err := ReplayAll(src, lockPath, Point{}, o)
	return states, err
}
