package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/printable"
)

// SessionsSchema is the version of the `zkscope sessions --json` document.
const SessionsSchema = 1

// WriteSessionsJSON writes the `zkscope sessions --json` document (README
// "Session view"): fields may be added, never renamed or dropped.
func WriteSessionsJSON(w io.Writer, servers []string, root string, ss []diagnose.Session, now time.Time) error {
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
	locks := func(ls []diagnose.SessionLock) []lockJSON {
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
		j := sessJSON{Session: lockops.FormatSession(s.ID), Ephemerals: s.Ephemerals, EphemeralsKnown: s.EphemeralsKnown,
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
func WriteSessionsTable(w io.Writer, ss []diagnose.Session, now time.Time) error {
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
func HeldAge(l diagnose.SessionLock, now time.Time) string {
	if l.Since.IsZero() {
		return "node age unknown"
	}
	return "node age " + lockops.FormatAge(now.Sub(l.Since))
}

// WaitedFor says how long a session has waited on l: "for 3m", or for a
// wait by watch alone, which node it watches (the servers keep no time
// for a watch).
func WaitedFor(l diagnose.SessionLock, now time.Time) string {
	if l.WatchOnly {
		return "watching " + printable.String(l.Node) + " (owns no node: since unknown)"
	}
	return "for " + lockops.FormatAge(now.Sub(l.Since))
}

// SessionRow is a session's cells in the table's order (shared with the
// TUI's session view), escaped ([printable.String]).
func SessionRow(s diagnose.Session, now time.Time) []string {
	id := lockops.FormatSession(s.ID)
	if s.Ours {
		id += " (ours)"
	}
	timeout, age, lop, pk := "-", "-", "-", "-"
	if s.Timeout > 0 {
		timeout = s.Timeout.String()
	}
	if !s.Established.IsZero() {
		age = lockops.FormatAge(now.Sub(s.Established))
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
