package exporter

import (
	"cmp"
	"fmt"
	"sort"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
)

// absent marks a figure a lock has no value for (its series is not sent).
const absent = -1.0

// figures are one lock's numbers as scrapes serve them, the same from one
// scrape to the next while the lock's queue is: what its read says, and
// for the ages the times they count from (a scrape counts them to its
// clock). Label values are made printable.
type figures struct {
	path, recipe     string
	holders, waiters float64
	nodeAgeFrom      time.Time // the oldest holder's node's creation; zero: no series
	heldFrom         time.Time // when the longest holder began to hold, where seen; zero: no series
	waitFrom         time.Time // when the oldest waiter began to wait; zero: 0 s (nobody waits, or unknown)
	ttl              float64   // seconds, or absent
	masters          float64   // Redlocks: masters holding, else absent
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

// figuresOf is what q shows.
func figuresOf(q *lockops.Queue, holderInfo bool) figures {
	f := figures{path: printable.String(q.Path), recipe: printable.String(string(q.Kind)), ttl: absent, masters: absent}
	var holders int
	minTTL := time.Duration(-1)
	for i := range q.Participants {
		p := &q.Participants[i]
		switch p.State {
		case lockops.StateHolding:
			holders++
			f.nodeAgeFrom = earliest(f.nodeAgeFrom, p.Ctime)
			f.heldFrom = earliest(f.heldFrom, p.HeldSince)
			if p.HasTTL && p.TTL >= 0 && (minTTL < 0 || p.TTL < minTTL) {
				minTTL = p.TTL
			}
			if holderInfo {
				f.holdersInfo = append(f.holdersInfo, holderOf(p))
			}
		case lockops.StateWaiting:
			f.waiters++
			f.waitFrom = earliest(f.waitFrom, waitStart(p, q.ReadAt))
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

// earliest is the earlier of a and b, a zero time being unknown.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// waitStart is when p began to wait, as well as it is known (zero: not
// known, its wait counted as 0 s).
func waitStart(p *lockops.Participant, readAt time.Time) time.Time {
	switch {
	case !p.Ctime.IsZero() && !p.WatcherOnly:
		return p.Ctime
	case !p.WaitSeen.IsZero():
		return p.WaitSeen
	}
	return readAt
}

// since is the seconds from t to now (0 when t is zero, never negative:
// clocks differ).
func since(t, now time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return seconds(now.Sub(t))
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

// byRank orders locks by how much they need to be served on their own:
// most errors, then warnings, then waiters, then by path.
func byRank(a, b *lockEntry) int {
	if c := cmp.Compare(b.errors, a.errors); c != 0 {
		return c
	}
	if c := cmp.Compare(b.warnings, a.warnings); c != 0 {
		return c
	}
	if c := cmp.Compare(b.waiters, a.waiters); c != 0 {
		return c
	}
	return cmp.Compare(a.path, b.path)
}

// capLocks keeps the first max of ranked (sorted byRank) and sums the
// rest into one lock's figures, the second result (nil when none is left
// over).
func capLocks(ranked []*lockEntry, maxLocks int) ([]*lockEntry, *figures, int) {
	if maxLocks <= 0 || len(ranked) <= maxLocks {
		return ranked, nil, 0
	}
	rest := figures{path: OtherLocks, recipe: OtherLocks, ttl: absent, masters: absent}
	for _, e := range ranked[maxLocks:] {
		f := &e.figures
		rest.holders += f.holders
		rest.waiters += f.waiters
		rest.waitFrom = earliest(rest.waitFrom, f.waitFrom)
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
	return ranked[:maxLocks], &rest, len(ranked) - maxLocks
}

// seconds is d in seconds, never negative (clocks differ).
func seconds(d time.Duration) float64 { return max(d, 0).Seconds() }
