package history

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
)

// A database recording's history written: its participants are backends
// (a PostgreSQL pid, a MySQL connection id) rather than nodes, and its
// moments are the reads that saw each change, without zxids.

// sessionText is t's session as `history --json` and the tables write it:
// a ZooKeeper session in 0x hex, a database backend's id in decimal (as
// `locks --json` writes them).
func sessionText(t *Tenure) string {
	if t.DB != nil {
		return strconv.FormatInt(t.Session, 10)
	}
	return lockops.FormatSession(t.Session)
}

// backendName is what t's backend is called on its server: "pid 4242"
// (PostgreSQL), "connection 17" (MySQL).
func backendName(kind lockops.Kind, t *Tenure) string {
	if kind == lockops.KindMySQLGetLock {
		return "connection " + sessionText(t)
	}
	return "pid " + sessionText(t)
}

// dbTenureDoc is a database tenure's fields in `history --json`, beyond
// every tenure's: its backend as the server described it when it arrived.
type dbTenureDoc struct {
	// ArrivedSeen: first seen holding; "arrived" is that read, "waited_ms"
	// 0 but not known.
	ArrivedSeen bool          `json:"arrived_seen,omitempty"`
	Client      string        `json:"client,omitempty"`
	Level       string        `json:"level,omitempty"`
	Backend     *dbBackendDoc `json:"backend,omitempty"`
}

type dbBackendDoc struct {
	Database     string `json:"database,omitempty"`
	User         string `json:"user,omitempty"`
	Application  string `json:"application,omitempty"`
	BackendStart string `json:"backend_start,omitempty"`
}

func dbTenureDocOf(t *Tenure) dbTenureDoc {
	d := t.DB
	if d == nil {
		return dbTenureDoc{}
	}
	out := dbTenureDoc{ArrivedSeen: t.ArrivedSeen, Client: t.Client, Level: d.Level}
	if !d.NoBackend {
		out.Backend = &dbBackendDoc{Database: d.Database, User: d.User, Application: d.Application}
		if !d.BackendStart.IsZero() {
			out.Backend.BackendStart = fmtStamp(d.BackendStart)
		}
	}
	return out
}

// writeDBTable is [WriteTable] of a database recording's history.
func writeDBTable(w io.Writer, rep Report) error {
	title := "history of " + string(rep.DB) + " locks"
	if rep.Root != "/" && rep.Root != "" {
		title += " " + printable.String(rep.Root)
	}
	fmt.Fprintf(w, "%s from %s to %s (%d changes, as the reads saw them)\n", title, fmtStamp(rep.First.Time), fmtStamp(rep.Last.Time), rep.Events)
	if len(rep.Locks) == 0 {
		_, err := fmt.Fprintln(w, "no lock changed in that time")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i := range rep.Locks {
		fmt.Fprintln(tw)
		writeDBLockHistory(tw, &rep.Locks[i], rep.End)
	}
	return tw.Flush()
}

func writeDBLockHistory(tw io.Writer, h *LockHistory, end time.Time) {
	held, never := holdOrder(h.Tenures)
	title := fmt.Sprintf("%s  %s  %d backends, %d held", printable.String(h.Path), h.Kind, len(h.Tenures), len(held))
	if h.UsualHold > 0 {
		title += ", usual hold " + fmtDur(h.UsualHold)
	}
	fmt.Fprintln(tw, title)
	fmt.Fprintln(tw, "  #\tARRIVED\tHELD AT\tWAITED\tHELD FOR\tBACKEND\tMODE\tCLIENT\tENDED")
	row := make(map[int]string, len(h.Tenures))
	for k, i := range held {
		t := &h.Tenures[i]
		row[i] = "#" + strconv.Itoa(k+1)
		arrived, waited := fmtClock(t.Arrived.Time), fmtDur(t.Waited(end))
		if t.ArrivedSeen {
			arrived, waited = "by "+arrived, "?" // first seen holding
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k+1, arrived, fmtClock(t.Held.Time),
			waited, fmtDur(t.HeldFor(end)), backendName(h.Kind, t), printable.String(string(t.Mode)), dbClientCell(t), endedCell(t))
	}
	for _, i := range never {
		t := &h.Tenures[i]
		fmt.Fprintf(tw, "  -\t%s\t-\t%s\t-\t%s\t%s\t%s\t%s\n", fmtClock(t.Arrived.Time), fmtDur(t.Waited(end)),
			backendName(h.Kind, t), printable.String(string(t.Mode)), dbClientCell(t), endedCell(t))
	}
	writeBehind(tw, h, held, row, func(t *Tenure) string { return backendName(h.Kind, t) })
	for _, pr := range h.Problems {
		fmt.Fprintf(tw, "  ! %s %s: %s\n", pr.Kind, printable.String(pr.Node), printable.String(pr.Detail))
	}
}

// dbClientCell is who a database participant's backend is: its user and
// application, and its client's address, as far as the server said.
func dbClientCell(t *Tenure) string {
	d := t.DB
	switch {
	case d == nil:
		return "-"
	case d.NoBackend:
		return "no session (a prepared transaction)"
	}
	who := d.User
	if d.Application != "" {
		who += "/" + d.Application
	}
	s := strings.TrimSpace(who + " " + t.Client)
	if s == "" {
		return "-"
	}
	s = printable.String(s)
	if r := []rune(s); len(r) > 48 {
		return string(r[:47]) + "…"
	}
	return s
}
