package dblock

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
)

// DiagnoseOptions are the bounds of [Diagnose]; zero takes the default.
type DiagnoseOptions struct {
	IdleLongerThan time.Duration // idle in transaction (default 30s)
	WaitLongerThan time.Duration // waiting (default 1m)
	TxLongerThan   time.Duration // a holder's open transaction (default 5m)
}

// The bounds' defaults.
const (
	DefaultIdleLongerThan = 30 * time.Second
	DefaultWaitLongerThan = time.Minute
	DefaultTxLongerThan   = 5 * time.Minute
)

// Locks are the snapshot's locks, decoded and diagnosed as of its read:
// what `locks`, `doctor` and the terminal UI show.
func Locks(s *dbview.Snapshot, o DiagnoseOptions) []lockops.Queue {
	qs := Decode(s)
	Diagnose(qs, s.At, o)
	return qs
}

// Diagnose adds the database problems to queues as of now: holders idle in
// a transaction, holders with no client, long waits, holders in long
// transactions, and wait-for cycles across locks (session-deadlock).
func Diagnose(queues []lockops.Queue, now time.Time, o DiagnoseOptions) {
	o.IdleLongerThan = orDefault(o.IdleLongerThan, DefaultIdleLongerThan)
	o.WaitLongerThan = orDefault(o.WaitLongerThan, DefaultWaitLongerThan)
	o.TxLongerThan = orDefault(o.TxLongerThan, DefaultTxLongerThan)
	for i := range queues {
		q := &queues[i]
		problem := participantProblem
		if q.Kind == lockops.KindMySQLGetLock {
			problem = mysqlProblem
		}
		for j := range q.Participants {
			if pr, ok := problem(&q.Participants[j], now, o); ok {
				q.Problems = append(q.Problems, pr)
			}
		}
	}
	cycles(queues)
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func participantProblem(p *lockops.Participant, now time.Time, o DiagnoseOptions) (lockops.Problem, bool) {
	d := p.DB
	if d == nil {
		return lockops.Problem{}, false
	}
	node := p.Node
	if p.State == lockops.StateWaiting {
		if !d.WaitStart.IsZero() && now.Sub(d.WaitStart) > o.WaitLongerThan {
			return lockops.Problem{Kind: lockops.ProblemWaitingTooLong, Node: node, Detail: fmt.Sprintf(
				"backend %d has waited %s (more than %s) for %s", p.Session, lockops.FormatAge(now.Sub(d.WaitStart)), o.WaitLongerThan, blockers(d.BlockedBy))}, true
		}
		return lockops.Problem{}, false
	}
	switch {
	case d.NoBackend && p.Session == 0:
		return lockops.Problem{Kind: lockops.ProblemHolderClientGone, Node: node, Detail: "held by a prepared transaction: no client will release it (COMMIT PREPARED or ROLLBACK PREPARED does)"}, true
	case d.NoBackend:
		return lockops.Problem{Kind: lockops.ProblemHolderClientGone, Node: node, Detail: fmt.Sprintf("held by backend %d, which the server no longer lists among its sessions", p.Session)}, true
	case strings.HasPrefix(d.State, "idle in transaction") && !d.StateChange.IsZero() && now.Sub(d.StateChange) > o.IdleLongerThan:
		return lockops.Problem{Kind: lockops.ProblemIdleInTransaction, Node: node, Detail: fmt.Sprintf(
			"holder backend %d (%s) has been %s for %s: its client stopped without ending the transaction", p.Session, who(d), d.State, lockops.FormatAge(now.Sub(d.StateChange)))}, true
	case !d.XactStart.IsZero() && now.Sub(d.XactStart) > o.TxLongerThan:
		level := "transaction- or session-level: the server does not say"
		if d.Level != "" {
			level = d.Level + "-level"
		}
		return lockops.Problem{Kind: lockops.ProblemLongTransaction, Node: node, Detail: fmt.Sprintf(
			"holder backend %d's transaction has been open for %s (%s)", p.Session, lockops.FormatAge(now.Sub(d.XactStart)), level)}, true
	}
	return lockops.Problem{}, false
}

func who(d *lockops.DBSession) string {
	s := d.User
	if d.Application != "" {
		s += ", " + d.Application
	}
	return s
}

func blockers(ids []int64) string {
	if len(ids) == 0 {
		return "the lock"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return "backends " + strings.Join(s, ", ")
}

// cycles finds wait-for cycles among the waiters' blocking backends
// across every lock and reports each once, on every lock a backend of it
// waits for (the server's deadlock detector breaks such a cycle after
// deadlock_timeout by cancelling one of them; one that stays is stuck).
func cycles(queues []lockops.Queue) {
	waits := map[int64][]int64{}
	where := map[int64][]int{} // backend → queues it waits in
	for i := range queues {
		for _, p := range queues[i].Participants {
			if p.State == lockops.StateWaiting && p.DB != nil {
				waits[p.Session] = append(waits[p.Session], p.DB.BlockedBy...)
				where[p.Session] = append(where[p.Session], i)
			}
		}
	}
	seen := map[string]bool{}
	ids := make([]int64, 0, len(waits))
	for id := range waits {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, start := range ids {
		cyc := findCycle(start, waits)
		if cyc == nil {
			continue
		}
		key := cycleKey(cyc)
		if seen[key] {
			continue
		}
		seen[key] = true
		added := map[int]bool{}
		for _, id := range cyc {
			for _, qi := range where[id] {
				if added[qi] {
					continue
				}
				added[qi] = true
				queues[qi].Problems = append(queues[qi].Problems, lockops.Problem{Kind: lockops.ProblemSessionDeadlock,
					Node: queues[qi].Path, Detail: "backends " + key + " each wait for the next (a wait-for cycle)"})
			}
		}
	}
}

// findCycle is a cycle through start in the wait-for graph, nil when none.
func findCycle(start int64, waits map[int64][]int64) []int64 {
	var path []int64
	on := map[int64]bool{}
	var walk func(id int64) bool
	walk = func(id int64) bool {
		if id == start && len(path) > 0 {
			return true
		}
		if on[id] {
			return false
		}
		on[id] = true
		path = append(path, id)
		for _, next := range waits[id] {
			if walk(next) {
				return true
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if walk(start) {
		return path
	}
	return nil
}

// cycleKey names a cycle the same whichever backend it starts at: from
// its smallest id, "7 → 9 → 7".
func cycleKey(cyc []int64) string {
	m := slices.Index(cyc, slices.Min(cyc))
	rot := append(append([]int64(nil), cyc[m:]...), cyc[:m]...)
	s := make([]string, 0, len(rot)+1)
	for _, id := range append(rot, rot[0]) {
		s = append(s, strconv.FormatInt(id, 10))
	}
	return strings.Join(s, " → ")
}
