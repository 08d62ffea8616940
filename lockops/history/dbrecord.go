package history

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/zkscope/zkscope/lockops"
)

// A database server's recording (`zkscope -s postgres://… locks --watch
// --record FILE`, or mysql://) has no nodes: its lines are participants,
// each a backend (a PostgreSQL pid, a MySQL connection id) holding or
// waiting for one lock, as one read of the server's lock table showed.
//
//	{"zkscope_recording":2,"root":"42","servers":["db1:5432/orders"],"started":"…","recipe":"postgres.advisory"}
//	{"op":"hold","seen":"…","path":"orders/42","key":"42","backend":4242,"backend_start":"…","mode":"exclusive","level":"session",…}
//	{"op":"wait","seen":"…","path":"orders/42","key":"42","backend":4250,"backend_start":"…","mode":"exclusive","ctime":"…","wait_start":"…",…}
//	{"op":"gone","seen":"…","path":"orders/42","key":"42","backend":4242,"backend_start":"…","mode":"exclusive"}
//
// A participant is its lock, its backend's id and start, and its mode: a
// new backend given the same pid is another participant. "wait" is a
// participant seen waiting for the first time, "hold" one seen holding
// (granted since the last read, or holding when first seen), "gone" one
// no longer listed. "seen" is when zkscope read it (all the lines of one
// read share it); "ctime" and "wait_start" are the server's (when the wait
// began, when known). What happened between two reads is not seen: hold
// and wait times are to the read, within --interval.

// dbLine is what a database recording's lines hold beyond a ZooKeeper
// one's (op, seen, path, ctime).
type dbLine struct {
	Recipe       string `json:"recipe,omitempty"` // the header's
	Key          string `json:"key,omitempty"`
	Backend      *int64 `json:"backend,omitempty"`
	BackendStart string `json:"backend_start,omitempty"`
	NoBackend    bool   `json:"no_backend,omitempty"`
	Mode         string `json:"mode,omitempty"`
	Level        string `json:"level,omitempty"`
	Database     string `json:"database,omitempty"`
	User         string `json:"user,omitempty"`
	Application  string `json:"application,omitempty"`
	Client       string `json:"client,omitempty"`
	WaitStart    string `json:"wait_start,omitempty"`
}

// DBParticipant is a database lock's participant in a recording: its
// lock's key and recipe, its mode, and what the server said of its
// backend when it arrived. With [Event.Path] (the lock) and
// [Event.Session] (the backend's id) it makes a recording's EventDBWait,
// EventDBHold and EventGone.
type DBParticipant struct {
	Kind    lockops.Kind
	Key     string
	Mode    lockops.Mode
	Client  string
	Ctime   time.Time // the server's: when its wait began, or a lower bound of its hold's start
	Session lockops.DBSession
}

// dbID is who a database participant is: a backend's id is reused by the
// server, its start with it is not.
type dbID struct {
	path    string
	backend int64
	start   int64 // the backend's start in Unix ns; 0: unknown (MySQL ids are not reused)
	mode    lockops.Mode
}

func dbIDOf(path string, backend int64, start time.Time, mode lockops.Mode) dbID {
	id := dbID{path: path, backend: backend, mode: mode}
	if !start.IsZero() {
		id.start = start.UnixNano()
	}
	return id
}

// key is id as a replay's open-tenure key.
func (id dbID) key() string {
	return strconv.FormatInt(id.backend, 10) + "@" + strconv.FormatInt(id.start, 10) + "/" + string(id.mode)
}

// dbSeen is a participant a [DBRecorder] last saw: whether it held, and
// what its gone line needs.
type dbSeen struct {
	holding   bool
	key       string
	start     time.Time
	noBackend bool
}

// DBRecorder writes a live recording of a database server's locks.
type DBRecorder struct {
	w     *bufio.Writer
	enc   *json.Encoder
	known map[dbID]dbSeen
	now   map[dbID]dbSeen // Observe's scratch: the read's participants
}

// NewDBRecorder starts a recording of recipe's locks (those whose key or
// path is root; "": all) on w.
func NewDBRecorder(w io.Writer, root string, servers []string, recipe lockops.Kind, started time.Time) (*DBRecorder, error) {
	bw := bufio.NewWriter(w)
	r := &DBRecorder{w: bw, enc: json.NewEncoder(bw), known: map[dbID]dbSeen{}, now: map[dbID]dbSeen{}}
	r.enc.SetEscapeHTML(false)
	h := recordLine{Recording: RecordingSchema, Root: root, Servers: servers, Started: fmtStamp(started)}
	h.Recipe = string(recipe)
	if err := r.enc.Encode(h); err != nil {
		return nil, fmt.Errorf("write recording: %w", err)
	}
	return r, r.Flush()
}

// Observe records how queues (every lock of one read, at seen) differ
// from the last read observed: the participants gone, then the waiters
// granted, then the new participants in their queues' order. A read
// that changed nothing writes nothing.
func (r *DBRecorder) Observe(queues []lockops.Queue, seen time.Time) error {
	at := fmtStamp(seen)
	now := r.now
	clear(now)
	var granted, fresh []recordLine
	for i := range queues {
		q := &queues[i]
		for j := range q.Participants {
			p := &q.Participants[j]
			if p.DB == nil {
				continue
			}
			id := dbIDOf(q.Path, p.Session, p.DB.BackendStart, p.Mode)
			s := dbSeen{holding: p.State == lockops.StateHolding, key: p.Name, start: p.DB.BackendStart, noBackend: p.DB.NoBackend}
			now[id] = s
			was, known := r.known[id]
			switch {
			case !known:
				fresh = append(fresh, dbLineOf(q.Path, p, at))
			case s.holding && !was.holding:
				granted = append(granted, s.line("hold", id, at))
			case !s.holding && was.holding: // (a server does not take a lock back: seen as a new wait)
				granted = append(granted, was.line("gone", id, at), dbLineOf(q.Path, p, at))
			}
		}
	}
	var lines []recordLine
	for id, s := range r.known {
		if _, ok := now[id]; !ok {
			lines = append(lines, s.line("gone", id, at))
		}
	}
	slices.SortFunc(lines, func(a, b recordLine) int { // (a map's order: the file the same for the same reads)
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(*a.Backend, *b.Backend), cmp.Compare(a.BackendStart, b.BackendStart), cmp.Compare(a.Mode, b.Mode))
	})
	lines = append(append(lines, granted...), fresh...)
	r.known, r.now = now, r.known
	if len(lines) == 0 {
		return nil
	}
	for i := range lines {
		if err := r.enc.Encode(lines[i]); err != nil {
			return fmt.Errorf("write recording: %w", err)
		}
	}
	return r.Flush()
}

// line is s's line of op (hold: granted; gone) at at: who it is, without
// what its arrival said.
func (s dbSeen) line(op string, id dbID, at string) recordLine {
	backend := id.backend
	l := recordLine{Op: op, Seen: at, Path: id.path, dbLine: dbLine{Key: s.key, Backend: &backend, NoBackend: s.noBackend, Mode: string(id.mode)}}
	if !s.start.IsZero() {
		l.BackendStart = s.start.UTC().Format(time.RFC3339Nano)
	}
	return l
}

// dbLineOf is p's line as it arrives (op hold or wait).
func dbLineOf(path string, p *lockops.Participant, at string) recordLine {
	d := p.DB
	id := p.Session
	l := recordLine{Op: "wait", Seen: at, Path: path, dbLine: dbLine{Key: p.Name, Backend: &id, NoBackend: d.NoBackend, Mode: string(p.Mode),
		Level: d.Level, Database: d.Database, User: d.User, Application: d.Application, Client: p.Client}}
	if p.State == lockops.StateHolding {
		l.Op = "hold"
	}
	if !d.BackendStart.IsZero() {
		l.BackendStart = d.BackendStart.UTC().Format(time.RFC3339Nano)
	}
	if !p.Ctime.IsZero() {
		l.Ctime = p.Ctime.UTC().Format(time.RFC3339Nano)
	}
	if !d.WaitStart.IsZero() {
		l.WaitStart = d.WaitStart.UTC().Format(time.RFC3339Nano)
	}
	return l
}

// Flush writes what is buffered.
func (r *DBRecorder) Flush() error {
	if err := r.w.Flush(); err != nil {
		return fmt.Errorf("write recording: %w", err)
	}
	return nil
}

// dbEventOfLine reads line n of a database recording of recipe.
func dbEventOfLine(l recordLine, n int, recipe lockops.Kind) (Event, error) {
	seen, err := time.Parse(time.RFC3339Nano, l.Seen)
	if err != nil {
		return Event{}, fmt.Errorf("recording line %d: seen %q: %w", n, l.Seen, err)
	}
	if l.Path == "" || l.Backend == nil {
		return Event{}, fmt.Errorf("recording line %d: a database participant needs its path and backend", n)
	}
	d := &DBParticipant{Kind: recipe, Key: l.Key, Mode: lockops.Mode(l.Mode), Client: l.Client,
		Session: lockops.DBSession{Level: l.Level, Database: l.Database, User: l.User, Application: l.Application, NoBackend: l.NoBackend}}
	for _, f := range []struct {
		name, s string
		t       *time.Time
	}{{"backend_start", l.BackendStart, &d.Session.BackendStart}, {"ctime", l.Ctime, &d.Ctime}, {"wait_start", l.WaitStart, &d.Session.WaitStart}} {
		if f.s == "" {
			continue
		}
		if *f.t, err = time.Parse(time.RFC3339Nano, f.s); err != nil {
			return Event{}, fmt.Errorf("recording line %d: %s %q: %w", n, f.name, f.s, err)
		}
	}
	ev := Event{Time: seen, Path: l.Path, Session: *l.Backend, DB: d}
	switch l.Op {
	case "wait":
		ev.Kind = EventDBWait
	case "hold":
		ev.Kind = EventDBHold
	case "gone":
		ev.Kind = EventGone
	default:
		return Event{}, fmt.Errorf("recording line %d: unknown op %q", n, l.Op)
	}
	return ev, nil
}
