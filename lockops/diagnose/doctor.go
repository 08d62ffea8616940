package diagnose

import "github.com/zkscope/zkscope/lockops"

// The `zkscope doctor` report: one finding per problem, as lines
// (kind<TAB>where<TAB>detail) or as one JSON document (README "Finding
// problems"). Both are drawn from the same list, [DoctorFindings].

// DoctorFinding is one problem doctor reports.
type DoctorFinding struct {
	Kind lockops.ProblemKind
	// Lock is the lock's path ("" for a subtree left unread or a
	// session's problem).
	Lock string
	// Node is the node concerned (a lock's path for a problem of the whole
	// lock, a subtree's for an unreadable one, a session's first node for
	// a session's problem).
	Node string
	// Session is the session of a per-session problem (owner-disconnected),
	// 0 otherwise; Nodes are then all its nodes.
	Session int64
	Nodes   []string
	Detail  string
}

// Where is the second column of doctor's line: the session of a
// per-session problem, else the node.
func (f DoctorFinding) Where() string {
	if f.Session != 0 {
		return lockops.FormatSession(f.Session)
	}
	return f.Node
}

// DoctorFindings lists what doctor reports, in order: subtrees left
// unread, each lock's problems but info (owner-disconnected aside), then
// owner-disconnected once per session (perSession, [OwnersDisconnected]).
func DoctorFindings(queues []lockops.Queue, unreadable []lockops.Problem, perSession []SessionProblem) []DoctorFinding {
	var out []DoctorFinding
	for _, u := range unreadable {
		out = append(out, DoctorFinding{Kind: u.Kind, Node: u.Node, Detail: u.Detail})
	}
	for _, q := range queues {
		for _, pr := range q.Problems {
			if pr.Severity() == lockops.SeverityInfo || pr.Kind == lockops.ProblemOwnerDisconnected {
				continue
			}
			node := pr.Node
			if node == "" {
				node = q.Path
			}
			out = append(out, DoctorFinding{Kind: pr.Kind, Lock: q.Path, Node: node, Detail: pr.Detail})
		}
	}
	for _, sp := range perSession {
		f := DoctorFinding{Kind: sp.Kind, Session: sp.Sessions[0], Nodes: sp.Nodes, Detail: sp.Detail}
		if len(sp.Nodes) > 0 {
			f.Node = sp.Nodes[0]
		}
		out = append(out, f)
	}
	return out
}
