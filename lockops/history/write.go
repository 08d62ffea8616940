package history

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
)

// Schema is the version of the `zkscope history --json` document.
const Schema = 1

// WriteTable writes a history for people: per lock a title, then
// its holders in the order they held (when each arrived, when it got the
// lock, how long it waited and held, how its tenure ended) with the
// waiters behind each, then the nodes that never held, then the problems.
// Times are UTC. name shortens node names ([lockops.ShortName]) or not.
func WriteTable(w io.Writer, rep Report, name func(string) string) error {
	if name == nil {
		name = lockops.ShortName
	}
	shorten := name
	name = func(s string) string { return printable.String(shorten(s)) }
	if rep.DB != "" {
		return writeDBTable(w, rep)
	}
	fmt.Fprintf(w, "history of %s from %s to %s (zxid %s to %s, %d changes)\n", printable.String(rep.Root),
		fmtStamp(rep.First.Time), fmtStamp(rep.Last.Time), FormatZxid(rep.First.Zxid), FormatZxid(rep.Last.Zxid), rep.Events)
	if len(rep.Locks) == 0 {
		_, err := fmt.Fprintln(w, "no lock changed in that time")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i := range rep.Locks {
		fmt.Fprintln(tw)
		writeLockHistory(tw, &rep.Locks[i], rep.End, name)
	}
	return tw.Flush()
}

func writeLockHistory(tw io.Writer, h *LockHistory, end time.Time, name func(string) string) {
	held, never := holdOrder(h.Tenures)
	title := fmt.Sprintf("%s  %s  %d nodes, %d held", printable.String(h.Path), h.Kind, len(h.Tenures), len(held))
	if h.UsualHold > 0 {
		title += ", usual hold " + fmtDur(h.UsualHold)
	}
	fmt.Fprintln(tw, title)
	fmt.Fprintln(tw, "  #\tARRIVED\tHELD AT\tWAITED\tHELD FOR\tNODE\tSESSION\tDATA\tENDED")
	row := make(map[int]string, len(h.Tenures)) // tenure -> its row's number
	for k, i := range held {
		t := &h.Tenures[i]
		row[i] = "#" + strconv.Itoa(k+1)
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k+1, fmtClock(t.Arrived.Time), fmtClock(t.Held.Time),
			fmtDur(t.Waited(end)), fmtDur(t.HeldFor(end)), name(baseName(t.Node)), lockops.FormatSession(t.Session), tenureCell(t), endedCell(t))
	}
	for _, i := range never {
		t := &h.Tenures[i]
		fmt.Fprintf(tw, "  -\t%s\t-\t%s\t-\t%s\t%s\t%s\t%s\n", fmtClock(t.Arrived.Time), fmtDur(t.Waited(end)),
			name(baseName(t.Node)), lockops.FormatSession(t.Session), tenureCell(t), endedCell(t))
	}
	writeBehind(tw, h, held, row, func(t *Tenure) string { return name(baseName(t.Node)) })
	for _, pr := range h.Problems {
		fmt.Fprintf(tw, "  ! %s %s: %s\n", pr.Kind, name(baseName(pr.Node)), printable.String(pr.Detail))
	}
}

// holdOrder splits tenures into those that held, in the order they got
// the lock, and those that never did, in order of arrival.
// writeBehind writes, under a lock's rows, who waited behind each holder
// (held: the tenures that held, in row order) and for how long: a waiter
// by its row ("#2"), else by who (a node's name, a database backend).
func writeBehind(tw io.Writer, h *LockHistory, held []int, row map[int]string, who func(*Tenure) string) {
	for _, i := range held {
		if len(h.Behind[i]) == 0 {
			continue
		}
		line := "  behind " + row[i] + ":"
		for k, wt := range h.Behind[i] {
			if k > 0 {
				line += ","
			}
			name, ok := row[wt.Tenure]
			if !ok {
				name = who(&h.Tenures[wt.Tenure])
			}
			line += " " + name + " waited " + fmtDur(wt.For)
		}
		fmt.Fprintln(tw, line)
	}
}

func holdOrder(ts []Tenure) (held, never []int) {
	for i := range ts {
		if ts[i].Held.IsZero() {
			never = append(never, i)
		} else {
			held = append(held, i)
		}
	}
	sort.SliceStable(held, func(a, b int) bool { // (a database recording's moments: times only)
		x, y := &ts[held[a]].Held, &ts[held[b]].Held
		return x.Zxid < y.Zxid || x.Zxid == y.Zxid && x.Time.Before(y.Time)
	})
	return held, never
}

// tenureCell is a tenure's data for the table: its system's fields
// (a Kafka controller's broker id) or the data itself, shortened.
func tenureCell(t *Tenure) string {
	if t.Payload != "" {
		s := printable.String(t.Payload)
		if utf8.RuneCountInString(s) > 80 {
			return string([]rune(s)[:79]) + "…"
		}
		return s
	}
	return report.DescribeData(t.Data, 24)
}

// endedCell says how a tenure ended, with who and the session's facts.
func endedCell(t *Tenure) string {
	switch t.End {
	case EndPresent:
		if t.Held.IsZero() {
			return "still waiting"
		}
		return "still holding"
	case EndReleased:
		return "released at " + fmtClock(t.Left.Time)
	case EndForceDeleted:
		return "force-deleted at " + fmtClock(t.Left.Time) + " by session " + lockops.FormatSession(t.By)
	case EndSessionClosed:
		return "session closed by its client at " + fmtClock(t.Left.Time)
	case EndSessionTerminated:
		return "session ended by the server at " + fmtClock(t.Left.Time) + " (not an expiry: " + sessionEndDetail(t) + ")"
	case EndSessionExpired:
		return "session expired at " + fmtClock(t.Left.Time) + " (" + sessionEndDetail(t) + ")"
	}
	return "gone by " + fmtClock(t.Left.Time) + " (seen live; cause not recorded)"
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// FormatZxid prints a zxid as ZooKeeper's tools do: 0x and lowercase hex.
func FormatZxid(z int64) string { return "0x" + strconv.FormatInt(z, 16) }

func fmtStamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// WriteJSON writes the `zkscope history --json` document (schema
// [Schema]): the span replayed, and per lock its tenures in order
// of arrival (times in UTC to the millisecond, zxids as 0x hex, durations
// in ms) with the waits behind each holder, and its problems as in
// `locks --json`.
func WriteJSON(w io.Writer, rep Report) error {
	db := rep.DB != ""
	doc := historyDoc{Schema: Schema, Root: rep.Root, From: momentOf(rep.First, db), To: momentOf(rep.Last, db), Events: rep.Events, Locks: []lockHistoryDoc{}}
	for i := range rep.Locks {
		h := &rep.Locks[i]
		ld := lockHistoryDoc{Path: h.Path, Recipe: string(h.Kind), UsualHoldMs: h.UsualHold.Milliseconds(), Tenures: []tenureDoc{}, Problems: []json.RawMessage{}}
		for j := range h.Tenures {
			ld.Tenures = append(ld.Tenures, tenureDocOf(h, j, rep.End, db))
		}
		for j := range h.Problems {
			ld.Problems = append(ld.Problems, json.RawMessage(report.AppendProblemJSON(nil, &h.Problems[j], h.Path)))
		}
		doc.Locks = append(doc.Locks, ld)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

type historyDoc struct {
	Schema int              `json:"schema"`
	Root   string           `json:"root"`
	From   *momentDoc       `json:"from"`
	To     *momentDoc       `json:"to"`
	Events int              `json:"events"`
	Locks  []lockHistoryDoc `json:"locks"`
}

// momentDoc is a moment; a database recording's have no zxid.
type momentDoc struct {
	Zxid string `json:"zxid,omitempty"`
	Time string `json:"time"`
}

type lockHistoryDoc struct {
	Path        string            `json:"path"`
	Recipe      string            `json:"recipe"`
	UsualHoldMs int64             `json:"usual_hold_ms,omitempty"`
	Tenures     []tenureDoc       `json:"tenures"`
	Problems    []json.RawMessage `json:"problems"`
}

type tenureDoc struct {
	Node             string     `json:"node"`
	Session          string     `json:"session"`
	Mode             string     `json:"mode"`
	Data             string     `json:"data"`
	Payload          string     `json:"payload,omitempty"`
	Arrived          *momentDoc `json:"arrived"`
	Held             *momentDoc `json:"held"`
	Left             *momentDoc `json:"left"`
	End              string     `json:"end"`
	By               *string    `json:"by"`
	WaitedMs         int64      `json:"waited_ms"`
	HeldMs           *int64     `json:"held_ms"`
	SessionTimeoutMs *int64     `json:"session_timeout_ms,omitempty"`
	SessionLastWrite *momentDoc `json:"session_last_write,omitempty"`
	Behind           []waitDoc  `json:"behind,omitempty"`
	dbTenureDoc
}

type waitDoc struct {
	Node     string `json:"node"`
	Session  string `json:"session"`
	WaitedMs int64  `json:"waited_ms"`
}

// momentOf is m's document: with its zxid, or (db) its time only.
func momentOf(m Moment, db bool) *momentDoc {
	switch {
	case m.IsZero():
		return nil
	case db:
		return &momentDoc{Time: fmtStamp(m.Time)}
	}
	return &momentDoc{Zxid: FormatZxid(m.Zxid), Time: fmtStamp(m.Time)}
}

func tenureDocOf(h *LockHistory, i int, end time.Time, db bool) tenureDoc {
	t := &h.Tenures[i]
	d := tenureDoc{Node: t.Node, Session: sessionText(t), Mode: string(t.Mode), Data: tenureData(t.Data), Payload: t.Payload, Arrived: momentOf(t.Arrived, db),
		Held: momentOf(t.Held, db), Left: momentOf(t.Left, db), End: string(t.End), WaitedMs: t.Waited(end).Milliseconds(), dbTenureDoc: dbTenureDocOf(t)}
	if !t.Held.IsZero() {
		ms := t.HeldFor(end).Milliseconds()
		d.HeldMs = &ms
	}
	if t.End != EndPresent && t.End != EndGone {
		by := lockops.FormatSession(t.By)
		d.By = &by
	}
	if t.End == EndSessionClosed || t.End == EndSessionExpired || t.End == EndSessionTerminated {
		if t.SessionTimeout > 0 {
			ms := t.SessionTimeout.Milliseconds()
			d.SessionTimeoutMs = &ms
		}
		d.SessionLastWrite = momentOf(t.LastWrite, db)
	}
	for _, wt := range h.Behind[i] {
		o := &h.Tenures[wt.Tenure]
		d.Behind = append(d.Behind, waitDoc{Node: o.Node, Session: sessionText(o), WaitedMs: wt.For.Milliseconds()})
	}
	return d
}

// tenureData is a node's data as JSON text: as it is when it is UTF-8,
// else described ([report.DescribeData]).
func tenureData(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return report.DescribeData(b, 64)
}
