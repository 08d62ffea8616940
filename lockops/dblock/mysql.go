package dblock

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
)

// mysqlIdle is the process-list command of an idle MySQL/MariaDB
// connection.
const mysqlIdle = "Sleep"

// mysqlProblem is a GET_LOCK participant's problem: a holder whose
// connection is idle (Sleep) past the bound is idle-in-transaction when
// InnoDB has a transaction of it open, else holder-idle; the rest as for
// every database lock (waits too long, long transactions).
func mysqlProblem(p *lockops.Participant, now time.Time, o DiagnoseOptions) (lockops.Problem, bool) {
	d := p.DB
	if d == nil || p.State != lockops.StateHolding || d.State != mysqlIdle || d.StateChange.IsZero() ||
		now.Sub(d.StateChange) <= o.IdleLongerThan {
		return participantProblem(p, now, o)
	}
	idle := lockops.FormatAge(now.Sub(d.StateChange))
	if !d.XactStart.IsZero() {
		return lockops.Problem{Kind: lockops.ProblemIdleInTransaction, Node: p.Node, Detail: fmt.Sprintf(
			"holder connection %d (%s) has been idle (Sleep) for %s in a transaction open for %s: its client stopped without ending it",
			p.Session, mysqlWho(p), idle, lockops.FormatAge(now.Sub(d.XactStart)))}, true
	}
	return lockops.Problem{Kind: lockops.ProblemHolderIdle, Node: p.Node, Detail: fmt.Sprintf(
		"holder connection %d (%s) has been idle (Sleep) for %s, no transaction open: its client holds the lock without using the connection",
		p.Session, mysqlWho(p), idle)}, true
}

func mysqlWho(p *lockops.Participant) string {
	parts := []string{}
	for _, s := range []string{p.DB.User, p.Client, p.DB.Application} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "its connection not shown to this account"
	}
	return strings.Join(parts, ", ")
}

// UnknownWaiters are the connections waiting in GET_LOCK for a lock the
// server does not name (MariaDB without performance_schema, a name built
// in SQL): they are in no queue.
func UnknownWaiters(s *dbview.Snapshot) []int64 {
	var out []int64
	for _, r := range s.Rows {
		if r.Key == "" && !r.Granted {
			out = append(out, r.Holder)
		}
	}
	slices.Sort(out)
	return out
}

// SessionWord names a recipe's sessions in messages: MySQL's are
// connections (their ids), PostgreSQL's backends (their pids).
func SessionWord(k lockops.Kind) string {
	if k == lockops.KindMySQLGetLock {
		return "connection"
	}
	return "pid"
}

// EndWord is how a recipe's holder session is ended.
func EndWord(k lockops.Kind) string {
	if k == lockops.KindMySQLGetLock {
		return "KILL CONNECTION"
	}
	return "pg_terminate_backend"
}
