// Package report writes what zkscope found for people and for scripts:
// the locks' table (table.go) and `locks --json` (json.go: the one
// encoder of the contract, checked by the goldens in testdata/locks-json),
// doctor's findings, the sessions and the ensemble reports, and the
// data of a node as a table cell ([DescribeData]). Server text is
// escaped here, where it is printed.
//
// It reads nothing and decides nothing: it imports the recipe model,
// the diagnosis' types and printable; no package that acts on locks, nor
// ui or cmd.
package report

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

// WriteTable writes the queues for people: per lock a title line, then one
// row per participant in order with its node's age (AGE: since its
// creation, not how long it has held: one read cannot know that), the
// node it watches and whether the servers confirm the watch, then the
// problems. A holder's HELD (how long it has held) is shown where it is
// known ([lockops.Participant.HeldSince]; see [TableOptions.Held]).
func WriteTable(w io.Writer, queues []lockops.Queue, now time.Time) error {
	return WriteTableWith(w, queues, now, TableOptions{})
}

// TableOptions tune [WriteTableWith].
type TableOptions struct {
	// FullNames prints node names whole instead of [lockops.ShortName]'s (into a
	// pipe: names a script can pass to evict).
	FullNames bool
	// Footnote, when set, is printed once after the table (why clients or
	// watches are unknown: diagnose.Verification.Note).
	Footnote string
	// Held adds the HELD column to every lock (`locks --watch`, which
	// sees holders begin): how long each holder has held where known,
	// "unknown" where not. Without it the column is shown only for locks
	// with a holder whose start is known.
	Held bool
}

// WriteTableWith is [WriteTable] with options. A mixed-library lock is
// followed by how each other library sees the same nodes.
func WriteTableWith(w io.Writer, queues []lockops.Queue, now time.Time, o TableOptions) error {
	if len(queues) == 0 {
		_, err := fmt.Fprintln(w, "no locks found")
		return err
	}
	name := func(s string) string { return printable.String(lockops.ShortName(s)) }
	if o.FullNames {
		name = printable.String
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, q := range queues {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		writeTableLock(tw, q, now, name, "", o.Held)
		for _, other := range q.Others {
			fmt.Fprintln(tw)
			writeTableLock(tw, other, now, name, "as "+string(other.Kind)+" sees it: ", o.Held)
		}
	}
	if o.Footnote != "" {
		fmt.Fprintf(tw, "\nnote: %s\n", printable.String(o.Footnote))
	}
	return tw.Flush()
}

func writeTableLock(tw io.Writer, q lockops.Queue, now time.Time, name func(string) string, prefix string, held bool) {
	holders, waiters := len(q.Holders()), len(q.Waiters())
	title := fmt.Sprintf("%s%s  %s  %d holding, %d waiting", prefix, printable.String(q.Path), q.Kind, holders, waiters)
	if q.MaxLeases > 0 {
		title += fmt.Sprintf(" (max %d leases)", q.MaxLeases)
	}
	if q.HasValidity {
		title += fmt.Sprintf(" (validity %dms)", q.Validity.Milliseconds())
	}
	fmt.Fprintln(tw, title)
	if len(q.Context) > 0 {
		fmt.Fprintf(tw, "  %s\n", printable.String((&lockops.Payload{Fields: q.Context}).String()))
	}
	held = held || heldKnown(q)
	if len(q.Participants) > 0 {
		age, heldCol := "AGE", ""
		if q.Kind.IsRedis() {
			age = "TTL" // no creation time; the key's time to live
		}
		if held {
			heldCol = "HELD\t"
		}
		fmt.Fprintf(tw, "  #\tSTATE\tMODE\tNODE\tSESSION\tCLIENT\t%s\t%sWAITS ON\tDATA\n", age, heldCol)
	}
	for _, p := range q.Participants {
		session, since := lockops.FormatSession(p.Session), ageCell(p, now)
		if q.Kind.IsRedis() { // no sessions; no creation time to count from
			session = "-"
			if !p.HasTTL {
				since = "-"
			}
		}
		data := dataCell(p)
		if p.DB != nil { // a backend's id; its session's (or wait's) start
			session, data = strconv.FormatInt(p.Session, 10), printable.String(dbCell(p))
			if p.Ctime.IsZero() {
				since = "-"
			}
		}
		if held {
			since += "\t" + heldCell(p, now)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			p.Position+1, p.State, p.Mode, name(p.Name), session, printable.String(orDash(p.Client)), // "#" counts from 1 (JSON's position from 0)
			since, watchCell(p, name), data)
	}
	for _, pr := range q.Problems {
		node := ""
		if pr.Node != "" {
			node = " " + name(pr.Node[strings.LastIndexByte(pr.Node, '/')+1:]) + ":"
		}
		fmt.Fprintf(tw, "  ! %s%s %s\n", pr.Kind, node, printable.String(pr.Detail))
	}
}

// ageCell is a participant's node age (since its creation: for a holder
// not how long it has held); for a Redis one, which keeps no creation
// time, how long its key has left ("ttl 4.2s", "no expiry").
func ageCell(p lockops.Participant, now time.Time) string {
	switch {
	case p.WatcherOnly:
		return "-" // no node of its own: since when is unknown
	case !p.HasTTL:
		return lockops.FormatAge(now.Sub(p.Ctime))
	case p.TTL == lockops.NoExpiry:
		return "no expiry"
	case p.TTL < 0:
		return "deadline -" + lockops.FormatAge(-p.TTL)
	}
	return "ttl " + lockops.FormatAge(p.TTL)
}

// heldCell is how long a holder has held, with how that is known ("14s
// (seen)"), "unknown" when it is not; "-" for a waiter.
func heldCell(p lockops.Participant, now time.Time) string {
	switch {
	case p.State != lockops.StateHolding:
		return "-"
	case p.HeldSince.IsZero():
		return "unknown"
	}
	return lockops.FormatAge(now.Sub(p.HeldSince)) + " (" + string(p.HeldSource) + ")"
}

// heldKnown reports whether a holder of q has a known start.
func heldKnown(q lockops.Queue) bool {
	for i := range q.Participants {
		if !q.Participants[i].HeldSince.IsZero() {
			return true
		}
	}
	return false
}

// dataCell is a participant's data: decoded in its system's format when
// it has one, else as [DescribeData] shows it (with the reason when the
// format did not parse).
func dataCell(p lockops.Participant) string {
	switch {
	case p.Payload == nil:
		return DescribeData(p.Data, 32)
	case p.Payload.Err != "":
		return DescribeData(p.Data, 32) + " (" + printable.String(p.Payload.Err) + ")"
	}
	return printable.String(p.Payload.String())
}

func watchCell(p lockops.Participant, name func(string) string) string {
	switch {
	case p.Watches == "":
		return "-"
	case p.WatchKind == lockops.WatchBackends:
		return "backend " + p.Watches
	case p.WatchKind == lockops.WatchChildren:
		return "children of " + printable.String(p.Watches) + " " + ObservedMark(p.WatchObserved)
	}
	return name(p.Watches[strings.LastIndexByte(p.Watches, '/')+1:]) + " (" + string(p.WatchKind) + ") " + ObservedMark(p.WatchObserved)
}

// ObservedMark is ✓ when the servers confirm a watch, ✗ when they do not,
// ? when unknown.
func ObservedMark(observed *bool) string {
	switch {
	case observed == nil:
		return "?"
	case *observed:
		return "✓"
	}
	return "✗"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// DescribeData shows node data in at most max runes: text as is (escaped
// as [printable.String] escapes it), Curator's revocation marker named,
// anything else as "<N bytes binary>" ([lockops.DescribeDataWith]).
func DescribeData(b []byte, max int) string {
	return lockops.DescribeDataWith(b, max, printable.String)
}
