package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
)

// A live recording (`zkscope locks --watch --record FILE`) is JSON lines:
// a header, then one line per change zkscope saw in a lock's queue.
//
//	{"zkscope_recording":1,"root":"/app/locks","servers":["127.0.0.1:2181"],"started":"…"}
//	{"op":"create","seen":"…","path":"/app/locks/l/…0001","zxid":"0x1f","ctime":"…","owner":"0x10000…","data":"<base64>"}
//	{"op":"gone","seen":"…","path":"/app/locks/l/…0000","zxid":"0x21"}
//
// "seen" is when zkscope read the change. A create carries the node's own
// czxid and ctime (the servers'), a gone the directory's pzxid at the read
// that missed it ("" when the read did not give it): the node was deleted
// at or before that zxid, after its creation. Who deleted it is not known,
// so a recording cannot tell a release from a force-delete or an expiry;
// and its hold times are upper bounds by up to one read (the watch fires
// at once, so the read follows within milliseconds).

// RecordingSchema is the newest version of a live recording's header
// this zkscope reads: 1 for ZooKeeper's (node lines), 2 for a database
// server's (participant lines, dbrecord.go). A recording is written with
// the lowest schema that holds it, so an older zkscope still reads every
// ZooKeeper recording and refuses a database's by its schema.
const RecordingSchema = 2

// recordingSchemaZooKeeper is the schema of a ZooKeeper recording.
const recordingSchemaZooKeeper = 1

type recordLine struct {
	Recording int      `json:"zkscope_recording,omitempty"`
	Root      string   `json:"root,omitempty"`
	Servers   []string `json:"servers,omitempty"`
	Started   string   `json:"started,omitempty"`
	Op        string   `json:"op,omitempty"`
	Seen      string   `json:"seen,omitempty"`
	Path      string   `json:"path,omitempty"`
	Zxid      string   `json:"zxid,omitempty"`
	Ctime     string   `json:"ctime,omitempty"`
	Owner     string   `json:"owner,omitempty"`
	Data      []byte   `json:"data,omitempty"`
	dbLine
}

// Recorder writes a live recording of the queues it is shown.
type Recorder struct {
	w     *bufio.Writer
	enc   *json.Encoder
	known map[string]map[seenNode]struct{} // lock path -> its nodes last seen
}

// NewRecorder starts a recording of the locks at or below root on w.
func NewRecorder(w io.Writer, root string, servers []string, started time.Time) (*Recorder, error) {
	bw := bufio.NewWriter(w)
	r := &Recorder{w: bw, enc: json.NewEncoder(bw), known: map[string]map[seenNode]struct{}{}}
	r.enc.SetEscapeHTML(false)
	if err := r.enc.Encode(recordLine{Recording: recordingSchemaZooKeeper, Root: root, Servers: servers, Started: fmtStamp(started)}); err != nil {
		return nil, fmt.Errorf("write recording: %w", err)
	}
	return r, r.Flush()
}

// seenNode is one node as a recording knows it: a node deleted and
// created again at the same path (a single-node lock changing hands
// between two reads) is another node.
type seenNode struct {
	node  string
	czxid int64
}

// Observe records how q (the lock's queue read at seen, its directory's
// pzxid then; 0: unknown) differs from the last queue of the same lock
// observed: new nodes in order of creation, then the nodes gone.
func (r *Recorder) Observe(q *lockops.Queue, pzxid int64, seen time.Time) error {
	was := r.known[q.Path]
	now := make(map[seenNode]struct{}, len(q.Participants))
	fresh := make([]*lockops.Participant, 0)
	for i := range q.Participants {
		p := &q.Participants[i]
		if p.WatcherOnly {
			continue // a waiter on a watch: no node of its own
		}
		k := seenNode{p.Node, p.Czxid}
		now[k] = struct{}{}
		if _, ok := was[k]; !ok {
			fresh = append(fresh, p)
		}
	}
	sortByCzxid(fresh)
	at := fmtStamp(seen)
	z := ""
	if pzxid != 0 {
		z = FormatZxid(pzxid)
	}
	again := make(map[string]bool, len(fresh)) // paths made again: their old node goes first
	for _, p := range fresh {
		again[p.Node] = true
	}
	gone := func(first bool) error {
		for k := range was {
			if _, ok := now[k]; !ok && again[k.node] == first {
				if err := r.enc.Encode(recordLine{Op: "gone", Seen: at, Path: k.node, Zxid: z}); err != nil {
					return fmt.Errorf("write recording: %w", err)
				}
			}
		}
		return nil
	}
	if err := gone(true); err != nil {
		return err
	}
	for _, p := range fresh {
		l := recordLine{Op: "create", Seen: at, Path: p.Node, Zxid: FormatZxid(p.Czxid), Ctime: fmtStamp(p.Ctime), Data: p.Data}
		if p.Ephemeral {
			l.Owner = lockops.FormatSession(p.Session)
		}
		if err := r.enc.Encode(l); err != nil {
			return fmt.Errorf("write recording: %w", err)
		}
	}
	if err := gone(false); err != nil {
		return err
	}
	if len(now) == 0 {
		delete(r.known, q.Path)
	} else {
		r.known[q.Path] = now
	}
	return r.Flush()
}

func sortByCzxid(ps []*lockops.Participant) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Czxid < ps[j-1].Czxid; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// Flush writes what is buffered.
func (r *Recorder) Flush() error {
	if err := r.w.Flush(); err != nil {
		return fmt.Errorf("write recording: %w", err)
	}
	return nil
}

// RecordingHeader is what a recording says of itself.
type RecordingHeader struct {
	Root    string
	Servers []string
	Started time.Time
	// Recipe is a database recording's recipe ([lockops.KindPostgresAdvisory],
	// [lockops.KindMySQLGetLock]); "" for ZooKeeper's, whose locks are
	// decoded from their nodes.
	Recipe lockops.Kind
}

// recordingSource reads a recording's lines as history events.
type recordingSource struct {
	sc     *bufio.Scanner
	line   int
	recipe lockops.Kind // a database recording's ("": ZooKeeper's)
}

// OpenRecording reads a recording's header and returns its events.
func OpenRecording(r io.Reader) (RecordingHeader, EventSource, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return RecordingHeader{}, nil, fmt.Errorf("read recording: %w", err)
		}
		return RecordingHeader{}, nil, errors.New("not a zkscope recording: the file is empty")
	}
	var h recordLine
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Recording == 0 {
		return RecordingHeader{}, nil, errors.New("not a zkscope recording (made by zkscope locks --watch --record FILE)")
	}
	if h.Recording > RecordingSchema {
		return RecordingHeader{}, nil, fmt.Errorf("recording schema %d is newer than this zkscope reads (%d): upgrade zkscope", h.Recording, RecordingSchema)
	}
	started, _ := time.Parse(time.RFC3339Nano, h.Started)
	hd := RecordingHeader{Root: h.Root, Servers: h.Servers, Started: started, Recipe: lockops.Kind(h.Recipe)}
	if hd.Recipe != "" && !hd.Recipe.IsDB() {
		return RecordingHeader{}, nil, fmt.Errorf("a recording of recipe %q, which this zkscope does not know: upgrade zkscope", h.Recipe)
	}
	return hd, &recordingSource{sc: sc, line: 1, recipe: hd.Recipe}, nil
}

// Next implements [EventSource].
func (s *recordingSource) Next() (Event, error) {
	for s.sc.Scan() {
		s.line++
		if len(strings.TrimSpace(s.sc.Text())) == 0 {
			continue
		}
		var l recordLine
		if err := json.Unmarshal(s.sc.Bytes(), &l); err != nil {
			return Event{}, fmt.Errorf("recording line %d: %w", s.line, err)
		}
		if s.recipe != "" {
			return dbEventOfLine(l, s.line, s.recipe)
		}
		return eventOfLine(l, s.line)
	}
	if err := s.sc.Err(); err != nil {
		return Event{}, fmt.Errorf("read recording: %w", err)
	}
	return Event{}, io.EOF
}

func eventOfLine(l recordLine, n int) (Event, error) {
	seen, err := time.Parse(time.RFC3339Nano, l.Seen)
	if err != nil {
		return Event{}, fmt.Errorf("recording line %d: seen %q: %w", n, l.Seen, err)
	}
	ev := Event{Time: seen, Path: l.Path}
	if l.Zxid != "" {
		if ev.Zxid, err = parseHex(l.Zxid); err != nil {
			return Event{}, fmt.Errorf("recording line %d: zxid %q: %w", n, l.Zxid, err)
		}
	}
	switch l.Op {
	case "create":
		ev.Kind, ev.Data = EventCreate, l.Data
		if ev.Ctime, err = time.Parse(time.RFC3339Nano, l.Ctime); err != nil {
			return Event{}, fmt.Errorf("recording line %d: ctime %q: %w", n, l.Ctime, err)
		}
		if l.Owner != "" {
			if ev.Owner, err = parseHex(l.Owner); err != nil {
				return Event{}, fmt.Errorf("recording line %d: owner %q: %w", n, l.Owner, err)
			}
		}
	case "gone":
		ev.Kind = EventGone
	default:
		return Event{}, fmt.Errorf("recording line %d: unknown op %q", n, l.Op)
	}
	return ev, nil
}

// parseHex reads "0x…" as the 64 bits of an int64 (session ids and zxids
// go above 2^63 as unsigned).
func parseHex(s string) (int64, error) {
	u, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	return int64(u), err
}
