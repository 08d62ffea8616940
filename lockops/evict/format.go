package evict

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
)

// FormatPreview renders a preview as the plain text the CLI prints
// before asking for confirmation.
func FormatPreview(p *Preview) string {
	var b strings.Builder
	fmt.Fprintf(&b, "node      %s\n", printable.String(p.Node))
	fmt.Fprintf(&b, "lock      %s (%s)\n", printable.String(p.LockPath), p.Recipe)
	owner := "PERSISTENT (no session)"
	if p.Ephemeral {
		owner = "session " + lockops.FormatSession(p.Session)
		if p.Client != "" {
			owner += " from " + printable.String(p.Client)
		}
	}
	fmt.Fprintf(&b, "owner     %s\n", owner)
	fmt.Fprintf(&b, "data      %s\n", printableData(p.Data))
	role := "waiting"
	if p.Holding {
		role = "HOLDING the lock"
	}
	fmt.Fprintf(&b, "role      %s, created %s (%s ago)\n", role, p.Created.UTC().Format("2006-01-02 15:04:05Z"), p.HeldFor)
	fmt.Fprintf(&b, "czxid     0x%x, data version %d\n", p.Czxid, p.Version)
	switch {
	case len(p.NextHolders) > 0:
		fmt.Fprintf(&b, "next      %s gets the lock\n", printable.String(strings.Join(p.NextHolders, ", ")))
	case p.Holding && p.Racers > 0:
		fmt.Fprintf(&b, "next      a new election among the %s watching it\n", lockops.Plural(p.Racers, "session"))
	case p.Holding:
		fmt.Fprintf(&b, "next      nobody is waiting\n")
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "WARNING   %s\n", printable.String(w))
	}
	return b.String()
}

// printableData shows node data as text when it is, else as a byte count.
func printableData(d []byte) string {
	if len(d) == 0 {
		return "(empty)"
	}
	if !utf8.Valid(d) {
		return fmt.Sprintf("(%d bytes of binary data)", len(d))
	}
	s := string(d)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Sprintf("%q", s)
}
