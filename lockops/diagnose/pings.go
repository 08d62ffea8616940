package diagnose

import (
	"github.com/zkscope/zkscope/zkview/fourlw"
	"time"

	"github.com/zkscope/zkscope/zkview"
)

// Holders that answer only pings, or nothing: read from two samples of
// the members' connections (cons), or followed over many ([PingWatch]).

// PingOnly lists the sessions that, between two samples of the members'
// connections, sent nothing but pings: connected to the same member with
// the same connection in both, last operation PING in the second (or no
// packet at all in between), and no more packets received than the pings
// a client sends in the time between (one every third of the timeout when
// it sends nothing else; two more allowed for the edges). A client doing
// real work in between shows another last operation, or more packets.
func PingOnly(before, after *zkview.Ensemble) map[int64]bool {
	if before == nil || after == nil {
		return nil
	}
	dt := after.At.Sub(before.At)
	if dt <= 0 {
		return nil
	}
	was := map[int64]fourlw.Conn{}
	wasAt := map[int64]string{}
	for _, m := range before.Members {
		for _, c := range m.Conns {
			if c.HasSession {
				was[c.SessionID], wasAt[c.SessionID] = c, m.Addr
			}
		}
	}
	out := map[int64]bool{}
	for _, m := range after.Members {
		for _, c := range m.Conns {
			b, ok := was[c.SessionID]
			if !c.HasSession || !ok || wasAt[c.SessionID] != m.Addr || b.Addr != c.Addr || !b.Established.Equal(c.Established) {
				continue
			}
			idle := c.Recved == b.Recved && c.LastOp == b.LastOp // not even a ping
			if c.LastOp != "PING" && !idle || c.Timeout <= 0 || c.Recved < b.Recved {
				continue // (the first sample's last operation came before the window)
			}
			pings := int64(dt/(c.Timeout/3)) + 2
			if c.Recved-b.Recved <= pings {
				out[c.SessionID] = true
			}
		}
	}
	return out
}

// PingOnlySince is [PingOnly] between two samples, each session that
// sent pings in between (not nothing at all: see [SilentSince]) mapped to
// the earlier sample's time.
func PingOnlySince(before, after *zkview.Ensemble) map[int64]time.Time {
	out := map[int64]time.Time{}
	grew := recvedGrew(before, after)
	for id := range PingOnly(before, after) {
		if grew[id] {
			out[id] = before.At
		}
	}
	return out
}

// recvedGrew says, per session with the same connection in both samples,
// whether its member received packets from it in between.
func recvedGrew(before, after *zkview.Ensemble) map[int64]bool {
	out := map[int64]bool{}
	if before == nil || after == nil {
		return out
	}
	was := connsBySession(before)
	for _, m := range after.Members {
		for _, c := range m.Conns {
			if b, ok := was[c.SessionID]; ok && c.HasSession && sameConn(b, m.Addr, c) {
				out[c.SessionID] = c.Recved > b.conn.Recved
			}
		}
	}
	return out
}

// memberConn is a connection and the member it is on.
type memberConn struct {
	conn   fourlw.Conn
	member string
}

func connsBySession(e *zkview.Ensemble) map[int64]memberConn {
	out := map[int64]memberConn{}
	for _, m := range e.Members {
		for _, c := range m.Conns {
			if c.HasSession {
				out[c.SessionID] = memberConn{c, m.Addr}
			}
		}
	}
	return out
}

// sameConn reports whether c on member is the connection b was.
func sameConn(b memberConn, member string, c fourlw.Conn) bool {
	return b.member == member && b.conn.Addr == c.Addr && b.conn.Established.Equal(c.Established)
}

// SilentSince maps the sessions that sent nothing at all, not even a
// ping, between two samples of the members' connections (the same
// connection, its received count unchanged) to the end of the earlier
// sample. For less than two thirds of its timeout that may be an idle
// client between pings; longer, it is not answering ([SilenceProves]).
func SilentSince(before, after *zkview.Ensemble) map[int64]time.Time {
	out := map[int64]time.Time{}
	if before == nil || after == nil {
		return out
	}
	was := connsBySession(before)
	for _, m := range after.Members {
		for _, c := range m.Conns {
			if b, ok := was[c.SessionID]; ok && c.HasSession && sameConn(b, m.Addr, c) && c.Recved == b.conn.Recved {
				out[c.SessionID] = sampleEnd(before)
			}
		}
	}
	return out
}

// SilenceProves reports whether a session of the given timeout that has
// sent nothing at all for d is not answering: d is two thirds of its
// timeout or more. A live client pings after a third of its timeout
// without traffic, and gives its connection up after two thirds without
// an answer (go-zookeeper, the Java client and kazoo alike): its process
// is stopped, or its connection cut.
func SilenceProves(timeout, d time.Duration) bool {
	return timeout > 0 && d >= timeout*2/3
}

// sampleEnd is when e's last answer came (its start when not recorded):
// a count read in e was read by then.
func sampleEnd(e *zkview.Ensemble) time.Time {
	if e.End.IsZero() {
		return e.At
	}
	return e.End
}

// PingWatch follows samples of the members' connections and remembers
// since when each session has answered only pings, and since when each
// has sent nothing at all (the TUI's refreshes).
type PingWatch struct {
	last   *zkview.Ensemble
	since  map[int64]time.Time // only pings, or nothing, since
	pinged map[int64]bool      // … and some pings in that time
	// quiet is each session's received count and since when it has not
	// changed.
	quiet map[int64]quietMark
}

// quietMark is a session's received count and since when it has not
// changed (the end of the first sample that read it).
type quietMark struct {
	recved int64
	since  time.Time
}

// Add takes the next sample.
func (w *PingWatch) Add(e *zkview.Ensemble) {
	if e == nil {
		return
	}
	next, pinged := map[int64]time.Time{}, map[int64]bool{}
	grew := recvedGrew(w.last, e)
	for id := range PingOnly(w.last, e) {
		s, ok := w.since[id]
		if !ok {
			s = w.last.At
		}
		next[id], pinged[id] = s, ok && w.pinged[id] || grew[id]
	}
	quiet := map[int64]quietMark{}
	var was map[int64]memberConn
	if w.last != nil {
		was = connsBySession(w.last)
	}
	for _, m := range e.Members {
		for _, c := range m.Conns {
			if !c.HasSession {
				continue
			}
			q, ok := w.quiet[c.SessionID]
			b, same := was[c.SessionID]
			if !ok || !same || !sameConn(b, m.Addr, c) || q.recved != c.Recved {
				q = quietMark{recved: c.Recved, since: sampleEnd(e)}
			}
			quiet[c.SessionID] = q
		}
	}
	w.last, w.since, w.pinged, w.quiet = e, next, pinged, quiet
}

// Since maps the sessions that have answered only pings (some pings, and
// nothing else) to since when.
func (w *PingWatch) Since() map[int64]time.Time {
	out := make(map[int64]time.Time, len(w.since))
	for id, s := range w.since {
		if w.pinged[id] {
			out[id] = s
		}
	}
	return out
}

// Silent maps the sessions that have sent nothing at all, not even a
// ping, since an earlier sample (see [SilentSince]) to since when.
func (w *PingWatch) Silent() map[int64]time.Time {
	return w.quietFor(func(fourlw.Conn, time.Duration) bool { return true })
}

// NotAnswering is [PingWatch.Silent] for the sessions whose silence proves
// it ([SilenceProves]: two thirds of their timeout or more).
func (w *PingWatch) NotAnswering() map[int64]time.Time {
	return w.quietFor(func(c fourlw.Conn, d time.Duration) bool { return SilenceProves(c.Timeout, d) })
}

// quietFor maps the sessions quiet since an earlier sample, for a time d
// that keep(their connection, d) accepts, to since when.
func (w *PingWatch) quietFor(keep func(fourlw.Conn, time.Duration) bool) map[int64]time.Time {
	out := map[int64]time.Time{}
	if w.last == nil {
		return out
	}
	for _, m := range w.last.Members {
		for _, c := range m.Conns {
			if q, ok := w.quiet[c.SessionID]; ok && c.HasSession && w.last.At.After(q.since) && keep(c, w.last.At.Sub(q.since)) {
				out[c.SessionID] = q.since
			}
		}
	}
	return out
}
