package lockops

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zkscope/zkscope/printable"
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
	// [zkview.Conn.LastResponse]).
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
	Lock string // the lock's path (as reported by locks)
	Kind Kind   // its recipe
	Node string // the session's node in it (WatchOnly: the node it watches)
	Mode Mode   // exclusive, read, write, lease, leader
	// Since is the node's creation (for a holder: not when it began to
	// hold); zero for a WatchOnly wait (no node of its own, so no time
	// the servers keep).
	Since time.Time
	// WatchOnly: the session owns no node of the lock and waits by
	// watching the holder's (a plain ephemeral lock's or a Kafka/HDFS
	// leader node's candidates: see [Participant.WatcherOnly]).
	WatchOnly bool
}

// ScanSessions scans the locks at or below root (the single-node ones
// too: their waiters show only in the servers' watch lists), asks the
// members, and joins both ([JoinSessions]). When the scan fails the
// sessions come without their locks, with the scan's error (a scan cut
// short, [ErrScanTruncated], with what it found).
func ScanSessions(ctx context.Context, c *zkview.Client, root string) ([]Session, *zkview.Ensemble, []Queue, error) {
	queues, err := Scan(ctx, c, root, ScanOptions{})
	if err != nil && !errors.Is(err, ErrScanTruncated) {
		queues = nil
	}
	e := c.Introspect(ctx)
	if err == nil || errors.Is(err, ErrScanTruncated) {
		var ferr error
		if queues, ferr = FindEphemeralLocks(ctx, c, root, e, queues); ferr != nil {
			err = ferr
		}
	}
	ApplyEnsemble(e, queues)
	return JoinSessions(e, queues, c.SessionID()), e, queues, err
}

// JoinSessions lists every session e reports, joined with the lock nodes
// of queues (held and waited on), sorted by id. own is the asking
// client's session (0: none).
func JoinSessions(e *zkview.Ensemble, queues []Queue, own int64) []Session {
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
			if p.State == StateHolding {
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

// SessionsSchema is the version of the `zkscope sessions --json` document.
const SessionsSchema = 1

// WriteSessionsJSON writes the `zkscope sessions --json` document (README
// "Session view"): fields may be added, never renamed or dropped.
func WriteSessionsJSON(w io.Writer, servers []string, root string, ss []Session, now time.Time) error {
	type lockJSON struct {
		Lock    string  `json:"lock"`
		Recipe  string  `json:"recipe"`
		Node    string  `json:"node"`
		Mode    string  `json:"mode"`
		Ctime   *string `json:"ctime"`
		Seconds *int64  `json:"seconds"`
		OwnNode *bool   `json:"own_node,omitempty"`
	}
	type sessJSON struct {
		Session         string     `json:"session"`
		Client          *string    `json:"client"`
		Member          *string    `json:"member"`
		TimeoutMs       *int64     `json:"timeout_ms"`
		Established     *string    `json:"established"`
		LastOp          *string    `json:"last_op"`
		LastResponse    *int64     `json:"last_response"`
		Received        *int64     `json:"received"`
		Sent            *int64     `json:"sent"`
		Ephemerals      []string   `json:"ephemerals"`
		EphemeralsKnown bool       `json:"ephemerals_known"`
		Holds           []lockJSON `json:"holds"`
		WaitsOn         []lockJSON `json:"waits_on"`
		Ours            bool       `json:"ours"`
	}
	locks := func(ls []SessionLock) []lockJSON {
		out := []lockJSON{}
		for _, l := range ls {
			j := lockJSON{Lock: l.Lock, Recipe: string(l.Kind), Node: l.Node, Mode: string(l.Mode)}
			if !l.Since.IsZero() {
				j.Ctime, j.Seconds = ptr(l.Since.UTC().Format(time.RFC3339Nano)), ptr(int64(now.Sub(l.Since)/time.Second))
			}
			if l.WatchOnly {
				j.OwnNode = ptr(false)
			}
			out = append(out, j)
		}
		return out
	}
	doc := struct {
		Schema   int        `json:"schema"`
		Servers  []string   `json:"servers"`
		Path     string     `json:"path"`
		Sessions []sessJSON `json:"sessions"`
	}{Schema: SessionsSchema, Servers: servers, Path: root, Sessions: []sessJSON{}}
	for _, s := range ss {
		j := sessJSON{Session: FormatSession(s.ID), Ephemerals: s.Ephemerals, EphemeralsKnown: s.EphemeralsKnown,
			Holds: locks(s.Holds), WaitsOn: locks(s.WaitsOn), Ours: s.Ours}
		if j.Ephemerals == nil {
			j.Ephemerals = []string{}
		}
		if s.Client != "" {
			j.Client = ptr(s.Client)
		}
		if s.Member != "" {
			j.Member = ptr(s.Member)
		}
		if s.Timeout > 0 {
			j.TimeoutMs = ptr(s.Timeout.Milliseconds())
		}
		if !s.Established.IsZero() {
			j.Established = ptr(s.Established.UTC().Format(time.RFC3339Nano))
		}
		if s.LastOp != "" {
			j.LastOp, j.LastResponse, j.Received, j.Sent = ptr(s.LastOp), ptr(s.LastResponse), ptr(s.Received), ptr(s.Sent)
		}
		doc.Sessions = append(doc.Sessions, j)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteSessionsTable writes one row per session, then its locks. The rows
// are aligned together (a tabwriter block ends at a line without a tab,
// so they are aligned first, then interleaved with the lock lines).
func WriteSessionsTable(w io.Writer, ss []Session, now time.Time) error {
	if len(ss) == 0 {
		_, err := fmt.Fprintln(w, "no sessions found")
		return err
	}
	var rows strings.Builder
	tw := tabwriter.NewWriter(&rows, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tCLIENT\tMEMBER\tTIMEOUT\tAGE\tLAST OP\tRECV/SENT\tEPHEMERALS\tHOLDS\tWAITS")
	for _, s := range ss {
		fmt.Fprintln(tw, strings.Join(SessionRow(s, now), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := strings.SplitAfter(rows.String(), "\n")
	var b strings.Builder
	b.WriteString(lines[0])
	for i, s := range ss {
		b.WriteString(lines[i+1])
		for _, l := range s.Holds {
			fmt.Fprintf(&b, "  holds %s (%s), %s\n", printable.String(l.Lock), l.Mode, HeldAge(l, now))
		}
		for _, l := range s.WaitsOn {
			fmt.Fprintf(&b, "  waits on %s (%s) %s\n", printable.String(l.Lock), l.Mode, WaitedFor(l, now))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// HeldAge says what is known of how long a session has held l: its
// node's age ("node age 3m"), which bounds the hold from above (a node
// holds from when those before it left; one read cannot know when).
func HeldAge(l SessionLock, now time.Time) string {
	if l.Since.IsZero() {
		return "node age unknown"
	}
	return "node age " + FormatAge(now.Sub(l.Since))
}

// WaitedFor says how long a session has waited on l: "for 3m", or for a
// wait by watch alone, which node it watches (the servers keep no time
// for a watch).
func WaitedFor(l SessionLock, now time.Time) string {
	if l.WatchOnly {
		return "watching " + printable.String(l.Node) + " (owns no node: since unknown)"
	}
	return "for " + FormatAge(now.Sub(l.Since))
}

// SessionRow is a session's cells in the table's order (shared with the
// TUI's session view), escaped ([printable.String]).
func SessionRow(s Session, now time.Time) []string {
	id := FormatSession(s.ID)
	if s.Ours {
		id += " (ours)"
	}
	timeout, age, lop, pk := "-", "-", "-", "-"
	if s.Timeout > 0 {
		timeout = s.Timeout.String()
	}
	if !s.Established.IsZero() {
		age = FormatAge(now.Sub(s.Established))
	}
	if s.LastOp != "" {
		lop, pk = s.LastOp, fmt.Sprintf("%d/%d", s.Received, s.Sent)
	}
	eph := "?"
	if s.EphemeralsKnown {
		eph = fmt.Sprint(len(s.Ephemerals))
	}
	member := orDash(s.Member)
	if !s.ConnectedToSome && s.ConnectionsKnown {
		member = "none"
	}
	return printableCells([]string{id, orDash(s.Client), member, timeout, age, lop, pk, eph, fmt.Sprint(len(s.Holds)), fmt.Sprint(len(s.WaitsOn))})
}

// printableCells escapes every cell of a row ([printable.String]).
func printableCells(cells []string) []string {
	for i, c := range cells {
		cells[i] = printable.String(c)
	}
	return cells
}
