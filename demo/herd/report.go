package herd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/zkscope/zkscope/printable"
)

// Report is what `zkscope demo --herd --report` prints: each lock's
// releases and their totals.
type Report struct {
	Contenders int          `json:"contenders"`
	Releases   int          `json:"releases"`
	Locks      []LockReport `json:"locks"`
}

// LockReport is one lock's share of a [Report].
type LockReport struct {
	Lock   Style  `json:"lock"`
	Recipe string `json:"recipe"`
	Path   string `json:"path"`
	// Total is the sum over the releases (Handover too: divide by
	// the releases for the mean).
	Total    Counts    `json:"total"`
	Releases []Release `json:"releases"`
}

// Run releases each lock of h releases times, taking turns, and reports.
func Run(ctx context.Context, h *Herd, releases int) (Report, error) {
	rep := Report{Contenders: h.Contenders(), Releases: releases}
	byLock := map[Style]*LockReport{}
	for _, s := range Styles {
		rep.Locks = append(rep.Locks, LockReport{Lock: s, Recipe: s.Recipe(), Path: h.Path(s)})
	}
	for i := range rep.Locks {
		byLock[rep.Locks[i].Lock] = &rep.Locks[i]
	}
	for range releases {
		rs, err := h.Round(ctx)
		if err != nil {
			return rep, err
		}
		for _, r := range rs {
			lr := byLock[r.Lock]
			lr.Releases = append(lr.Releases, r)
			lr.Total.add(r.Counts)
		}
	}
	return rep, nil
}

// WriteTable writes rep as a table with a legend of where each number
// comes from.
func WriteTable(w io.Writer, rep Report) error {
	fmt.Fprintf(w, "%d contenders on each lock, %d releases each\n\n", rep.Contenders, rep.Releases)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LOCK\tRECIPE\tNOTIFICATIONS\tSERVERS' VIEW\tREQUESTS\tREADS\tPER RELEASE\tHANDOVER (MEAN)")
	for _, l := range rep.Locks {
		perRelease := "-"
		if rep.Releases > 0 {
			perRelease = fmt.Sprintf("%.1f / %.1f", float64(l.Total.Notifications)/float64(rep.Releases),
				float64(l.Total.Requests)/float64(rep.Releases))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", l.Lock, l.Recipe, l.Total.Notifications,
			l.Total.ServerNotifications, l.Total.Requests, l.Total.Reads, perRelease, meanHandover(l.Total.Handover, rep.Releases))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, `
NOTIFICATIONS: watch notifications the contenders received (their own counters).
SERVERS' VIEW: sessions the servers listed watching the released node just before each release (wchc).
REQUESTS: what the woken contenders sent until the next holder held (their own counters); READS: the reads among them.
PER RELEASE: notifications / requests. The naive lock is what 'zkscope doctor' flags as a herd.
`)
	return err
}

// WriteJSON writes rep as one JSON document.
func WriteJSON(w io.Writer, rep Report) error {
	e := json.NewEncoder(printable.JSON(w)) // node names are the server's text
	e.SetIndent("", "  ")
	return e.Encode(rep)
}

// meanHandover is total over n releases, rounded for people.
func meanHandover(total time.Duration, n int) string {
	if n == 0 {
		return "-"
	}
	d := total / time.Duration(n)
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}
