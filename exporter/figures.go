package exporter

import (
	"fmt"
	"sort"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
)

// absent marks a figure a lock has no value for (its series is not sent).
const absent = -1.0

// figures are one lock's numbers as a scrape serves them.
type figures struct {
	path, recipe     string
	holders, waiters float64
	nodeAge, held    float64 // seconds, or absent
	oldestWait       float64 // seconds; 0 when nobody waits
	ttl              float64 // seconds, or absent
	masters          float64 // Redlocks: masters holding, else absent
	problems         []problemCount
	errors, warnings int
	holdersInfo      []holderID
}

type problemCount struct {
	kind     lockops.ProblemKind
	severity string
	n        float64
}

type holderID struct{ node, session, client string }

// figuresOf is what q shows now; label values are made printable.
func figuresOf(q *lockops.Queue, now time.Time, holderInfo bool) figures {
	f := figures{path: printable.String(q.Path), recipe: printable.String(string(q.Kind)),
		nodeAge: absent, held: absent, ttl: absent, masters: absent}
	var holders int
	minTTL := time.Duration(-1)
	for i := range q.Participants {
		p := &q.Participants[i]
		switch p.State {
		case lockops.StateHolding:
			holders++
			if !p.Ctime.IsZero() {
				f.nodeAge = max(f.nodeAge, seconds(now.Sub(p.Ctime)))
			}
			if !p.HeldSince.IsZero() {
				f.held = max(f.held, seconds(now.Sub(p.HeldSince)))
			}
			if p.HasTTL && p.TTL >= 0 && (minTTL < 0 || p.TTL < minTTL) {
				minTTL = p.TTL
			}
			if holderInfo {
				f.holdersInfo = append(f.holdersInfo, holderOf(p))
			}
		case lockops.StateWaiting:
			f.waiters++
			f.oldestWait = max(f.oldestWait, seconds(now.Sub(waitStart(p, q.ReadAt, now))))
		}
	}
	f.holders = float64(holders)
	if q.Kind == lockops.KindRedlock {
		f.masters = float64(holders)
		f.holders = float64(min(holders, 1)) // one token on a quorum: one client
	}
	if q.Kind.IsRedis() && minTTL >= 0 {
		f.ttl = seconds(minTTL)
	}
	f.problems, f.errors, f.warnings = countProblems(q.Problems)
	return f
}

// waitStart is when p began to wait, as well as it is known.
func waitStart(p *lockops.Participant, readAt, now time.Time) time.Time {
	switch {
	case !p.Ctime.IsZero() && !p.WatcherOnly:
		return p.Ctime
	case !p.WaitSeen.IsZero():
		return p.WaitSeen
	case !readAt.IsZero():
		return readAt
	}
	return now
}

func holderOf(p *lockops.Participant) holderID {
	h := holderID{node: printable.String(p.Node), client: printable.String(p.Client)}
	if p.Session != 0 {
		h.session = fmt.Sprintf("0x%x", p.Session)
	}
	return h
}

// countProblems counts problems by kind, sorted by kind.
func countProblems(ps []lockops.Problem) (out []problemCount, errors, warnings int) {
	for _, pr := range ps {
		switch pr.Severity() {
		case lockops.SeverityError:
			errors++
		case lockops.SeverityWarning:
			warnings++
		}
		found := false
		for i := range out {
			if out[i].kind == pr.Kind {
				out[i].n++
				found = true
			}
		}
		if !found {
			out = append(out, problemCount{kind: pr.Kind, severity: pr.Severity().String(), n: 1})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].kind < out[j].kind })
	return out, errors, warnings
}

// cap keeps the max most interesting locks (most errors, then warnings,
// then waiters, then by path) and sums the rest into one, the second
// result (nil when none is left over).
func capLocks(fs []figures, maxLocks int) ([]figures, *figures, int) {
	if maxLocks <= 0 || len(fs) <= maxLocks {
		return fs, nil, 0
	}
	sort.Slice(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if a.errors != b.errors {
			return a.errors > b.errors
		}
		if a.warnings != b.warnings {
			return a.warnings > b.warnings
		}
		if a.waiters != b.waiters {
			return a.waiters > b.waiters
		}
		return a.path < b.path
	})
	rest := figures{path: OtherLocks, recipe: OtherLocks, nodeAge: absent, held: absent, ttl: absent, masters: absent}
	for i := range fs[maxLocks:] {
		f := &fs[maxLocks+i]
		rest.holders += f.holders
		rest.waiters += f.waiters
		rest.oldestWait = max(rest.oldestWait, f.oldestWait)
		for _, pc := range f.problems {
			added := false
			for j := range rest.problems {
				if rest.problems[j].kind == pc.kind {
					rest.problems[j].n += pc.n
					added = true
				}
			}
			if !added {
				rest.problems = append(rest.problems, pc)
			}
		}
	}
	sort.Slice(rest.problems, func(i, j int) bool { return rest.problems[i].kind < rest.problems[j].kind })
	return fs[:maxLocks], &rest, len(fs) - maxLocks
}

// seconds is d in seconds, never negative (clocks differ).
func seconds(d time.Duration) float64 { return max(d, 0).Seconds() }
