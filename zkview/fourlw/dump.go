package fourlw

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Dump is a member's `dump` reply (or the AdminServer's `dump`).
type Dump struct {
	// Sessions lists every live session the member knows of: the leader's
	// (or standalone's) session sets, or a follower's "Global Sessions".
	// Nil when the reply had neither (empty, not nil, when it listed none).
	Sessions []int64
	// Expiry is when the leader/standalone will expire each session unless
	// it hears from it (empty on followers).
	Expiry map[int64]time.Time
	// Timeouts are the followers' per-session timeouts ("Global Sessions").
	Timeouts map[int64]time.Duration
	// Ephemerals maps each session that owns ephemeral nodes to their
	// (server, absolute) paths. The same on every member.
	Ephemerals map[int64][]string
	// Connections maps a session connected to this member to its client
	// address ("ip:port"); session-less connections are left out.
	Connections map[int64]string
}

// javaDate is Java's Date.toString layout.
const javaDate = "Mon Jan 02 15:04:05 MST 2006"

// The sections of a dump reply.
type dumpSection int

const (
	noSection dumpSection = iota
	sessionSets
	globalSessions
	ephemerals
	connections
)

// dumpParser is ParseDump's state between lines.
type dumpParser struct {
	d            Dump
	section      dumpSection
	expiry       time.Time // current "N expire at <date>:" group
	eph          int64     // current "0x…:" ephemerals owner
	haveEph      bool
	seenSessions bool
}

// ParseDump parses a `dump` reply of a leader, follower or standalone member.
func ParseDump(s string) (Dump, error) {
	p := dumpParser{d: Dump{Ephemerals: map[int64][]string{}, Connections: map[int64]string{}}}
	for _, raw := range strings.Split(s, "\n") {
		raw = strings.TrimRight(raw, "\r")
		line := strings.TrimSpace(raw)
		if line == "" || p.heading(line) {
			continue
		}
		indented := raw[0] == '\t' || raw[0] == ' '
		if err := p.line(line, indented); err != nil {
			return p.d, err
		}
	}
	if !p.seenSessions && len(p.d.Ephemerals) == 0 && !strings.Contains(s, "dump") {
		return p.d, fmt.Errorf("not a dump reply: %q", abbreviate(s))
	}
	return p.d, nil
}

// heading starts a section when line is a section's heading.
func (p *dumpParser) heading(line string) bool {
	switch {
	case strings.HasPrefix(line, "SessionTracker dump"):
		p.section = noSection
	case strings.HasPrefix(line, "Session Sets"):
		p.startSessions(sessionSets)
	case strings.HasPrefix(line, "Global Sessions"):
		p.startSessions(globalSessions)
	case strings.HasPrefix(line, "ephemeral nodes dump"), strings.HasPrefix(line, "Sessions with Ephemerals"):
		p.section, p.haveEph = ephemerals, false
	case strings.HasPrefix(line, "Connections dump"), strings.HasPrefix(line, "Connections Sets"):
		p.section = connections
	default:
		return false
	}
	return true
}

func (p *dumpParser) startSessions(s dumpSection) {
	p.section, p.seenSessions = s, true
	if p.d.Sessions == nil {
		p.d.Sessions = []int64{}
	}
}

// line reads one line of the current section; lines outside a known
// section are ignored.
func (p *dumpParser) line(line string, indented bool) error {
	switch p.section {
	case sessionSets:
		return p.sessionSet(line, indented)
	case globalSessions:
		return p.globalSession(line)
	case ephemerals:
		return p.ephemeral(line, indented)
	case connections:
		return p.connection(line)
	}
	return nil
}

func (p *dumpParser) sessionSet(line string, indented bool) error {
	if !indented {
		// "N expire at Mon Nov 23 07:56:47 UTC 2026:"
		p.expiry = time.Time{}
		if _, when, ok := strings.Cut(line, " expire at "); ok {
			if t, err := time.Parse(javaDate, strings.TrimSuffix(when, ":")); err == nil {
				p.expiry = t
			}
		}
		return nil
	}
	id, err := parseSessionID(line)
	if err != nil {
		return fmt.Errorf("dump: session sets: %w", err)
	}
	p.d.Sessions = append(p.d.Sessions, id)
	if !p.expiry.IsZero() {
		if p.d.Expiry == nil {
			p.d.Expiry = map[int64]time.Time{}
		}
		p.d.Expiry[id] = p.expiry
	}
	return nil
}

func (p *dumpParser) globalSession(line string) error {
	// "0x100004c8d9b0000	6000ms"
	f := strings.Fields(line)
	id, err := parseSessionID(f[0])
	if err != nil {
		return fmt.Errorf("dump: global sessions: %w", err)
	}
	p.d.Sessions = append(p.d.Sessions, id)
	if len(f) > 1 {
		if ms, err := strconv.ParseInt(strings.TrimSuffix(f[1], "ms"), 10, 64); err == nil {
			if p.d.Timeouts == nil {
				p.d.Timeouts = map[int64]time.Duration{}
			}
			p.d.Timeouts[id] = time.Duration(ms) * time.Millisecond
		}
	}
	return nil
}

func (p *dumpParser) ephemeral(line string, indented bool) error {
	if !indented {
		id, err := parseSessionID(strings.TrimSuffix(line, ":"))
		if err != nil {
			return fmt.Errorf("dump: ephemerals: %w", err)
		}
		p.eph, p.haveEph = id, true
		if _, ok := p.d.Ephemerals[id]; !ok {
			p.d.Ephemerals[id] = nil
		}
		return nil
	}
	if !p.haveEph {
		return fmt.Errorf("dump: ephemeral path %q without a session", abbreviate(line))
	}
	p.d.Ephemerals[p.eph] = append(p.d.Ephemerals[p.eph], line)
	return nil
}

func (p *dumpParser) connection(line string) error {
	// "ip: /127.0.0.1:44006 sessionId: 0x100004c7fea0000"
	rest, ok := strings.CutPrefix(line, "ip:")
	if !ok {
		return nil // "N expire at …:" group headings
	}
	a, sid, ok := strings.Cut(rest, "sessionId:")
	if !ok {
		return nil
	}
	id, err := parseSessionID(strings.TrimSpace(sid))
	if err != nil {
		return fmt.Errorf("dump: connections: %w", err)
	}
	addr, err := clientAddr(a)
	if err != nil {
		return fmt.Errorf("dump: connections: %w", err)
	}
	if id != 0 {
		p.d.Connections[id] = addr
	}
	return nil
}
