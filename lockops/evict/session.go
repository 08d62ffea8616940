package evict

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// SessionEviction is what `zkscope evict --session` would delete: every
// lock node of one session below a path, waiters first (so none of them
// gets the lock when a holder node of the same session goes), then
// holders.
type SessionEviction struct {
	Session int64
	Under   string
	Nodes   []SessionEvictNode
	// ForceLeader lets [EvictSession] delete the leader node of a
	// system's election (--force-leader); without it that node is refused
	// and the session's other nodes are deleted.
	ForceLeader bool
}

// SessionEvictNode is one lock node of the session.
type SessionEvictNode struct {
	Lock    string // the lock's path
	Kind    lockops.Kind
	Node    string
	Mode    lockops.Mode
	Holding bool
	Since   time.Time // the node's creation
	Expect  Expect    // what Evict checks before deleting it
}

// PlanSession scans the locks below under and lists session's lock
// nodes (a session waiting by a watch alone owns none to delete). It refuses (a [*lockops.Refusal], audited, nothing deleted) in read-only
// mode and when session is the caller's own; a scan that stopped early
// is an error (a partial list would leave nodes behind).
func PlanSession(ctx context.Context, c *zkview.Client, session int64, under string) (*SessionEviction, error) {
	if c.Config().ReadOnly {
		err := fmt.Errorf("%s the lock nodes of session %s below %s: %w", lockops.OpForceDelete, lockops.FormatSession(session), under, zkview.ErrReadOnly)
		audit.Record(c, lockops.OpForceDelete, under, nil, session, err)
		return nil, err
	}
	if session == 0 {
		return nil, audit.Refuse(c, lockops.OpForceDelete, under, session, "session 0x0 owns no ephemeral node: give the session id shown by 'zkscope sessions' or 'zkscope locks'")
	}
	if session == c.SessionID() {
		return nil, audit.Refuse(c, lockops.OpForceDelete, under, session, "session "+lockops.FormatSession(session)+" is zkscope's own: release our locks instead")
	}
	queues, err := scan.Scan(ctx, c, under, scan.Options{})
	if err != nil { // scan.ErrTruncated too: a partial list would leave nodes behind
		return nil, fmt.Errorf("scan the locks below %s: %w", under, err)
	}
	// Single-node locks (a plain ephemeral lock, a leader node) are found
	// through the sessions the servers list watching them.
	if queues, err = scan.FindEphemeralLocks(ctx, c, under, c.Introspect(ctx), queues); err != nil {
		return nil, fmt.Errorf("look for single-node locks below %s: %w", under, err)
	}
	return planEviction(queues, session, under), nil
}

// planEviction picks session's lock nodes from queues, waiters first.
func planEviction(queues []lockops.Queue, session int64, under string) *SessionEviction {
	e := &SessionEviction{Session: session, Under: under}
	for _, q := range queues {
		for _, p := range q.Participants {
			if p.Session != session || !p.Ephemeral || p.Mode == lockops.ModeStray || p.WatcherOnly {
				continue
			}
			e.Nodes = append(e.Nodes, SessionEvictNode{Lock: q.Path, Kind: q.Kind, Node: p.Node, Mode: p.Mode,
				Holding: p.State == lockops.StateHolding, Since: p.Ctime,
				Expect: Expect{Session: p.Session, Czxid: p.Czxid, Version: p.Version}})
		}
	}
	slices.SortStableFunc(e.Nodes, func(a, b SessionEvictNode) int {
		if a.Holding != b.Holding {
			if a.Holding {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Node, b.Node)
	})
	return e
}

// Write lists the nodes for the operator's confirmation.
func (e *SessionEviction) Write(w io.Writer, now time.Time) error {
	if len(e.Nodes) == 0 {
		_, err := fmt.Fprintf(w, "session %s owns no lock node below %s: nothing to do\n", lockops.FormatSession(e.Session), printable.String(e.Under))
		return err
	}
	fmt.Fprintf(w, "session %s owns %d lock node(s) below %s:\n", lockops.FormatSession(e.Session), len(e.Nodes), printable.String(e.Under))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NODE\tLOCK\tSTATE\tSINCE")
	for _, n := range e.Nodes {
		state := "waiting"
		if n.Holding {
			state = "holding"
		}
		fmt.Fprintf(tw, "  %s\t%s (%s %s)\t%s\t%s\n", printable.String(n.Node), printable.String(n.Lock), n.Kind, n.Mode, state, lockops.FormatAge(now.Sub(n.Since)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "Its client is NOT told: if it is still running it goes on as if it held its locks, while the next waiters take them.")
	return err
}

// EvictSession deletes each node of e with its own checks ([Evict]: same
// session, creation zxid and version; one audit line each), calling done
// after each. It goes on past a node that changed or went away and
// returns the first error other than a node gone.
func EvictSession(ctx context.Context, c *zkview.Client, e *SessionEviction, done func(SessionEvictNode, error)) error {
	var first error
	for _, n := range e.Nodes {
		err := Evict(ctx, c, n.Node, n.Expect, Options{ForceLeader: e.ForceLeader})
		if done != nil {
			done(n, err)
		}
		var ch *ChangedError
		if err != nil && first == nil && !(errors.As(err, &ch) && ch.What == "gone") {
			first = err
		}
	}
	return first
}
