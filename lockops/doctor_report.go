package lockops

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/zkscope/zkscope/printable"
)

// The `zkscope doctor` report: one finding per problem, as lines
// (kind<TAB>where<TAB>detail) or as one JSON document (README "Finding
// problems"). Both are drawn from the same list, [DoctorFindings].

// DoctorFinding is one problem doctor reports.
type DoctorFinding struct {
	Kind ProblemKind
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
		return FormatSession(f.Session)
	}
	return f.Node
}

// DoctorFindings lists what doctor reports, in order: subtrees left
// unread, each lock's problems but info (owner-disconnected aside), then
// owner-disconnected once per session (perSession, [OwnersDisconnected]).
func DoctorFindings(queues []Queue, unreadable []Problem, perSession []SessionProblem) []DoctorFinding {
	var out []DoctorFinding
	for _, u := range unreadable {
		out = append(out, DoctorFinding{Kind: u.Kind, Node: u.Node, Detail: u.Detail})
	}
	for _, q := range queues {
		for _, pr := range q.Problems {
			if pr.Severity() == SeverityInfo || pr.Kind == ProblemOwnerDisconnected {
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

// WriteDoctorLines writes one kind<TAB>where<TAB>detail line per finding.
func WriteDoctorLines(w io.Writer, fs []DoctorFinding) error {
	for _, f := range fs {
		if _, err := fmt.Fprintf(w, "%s\t%s\t%s\n", f.Kind, printable.String(f.Where()), printable.String(f.Detail)); err != nil {
			return err
		}
	}
	return nil
}

// DoctorSchema is the version of the `zkscope doctor --json` document.
const DoctorSchema = 1

// WriteDoctorJSON writes the `zkscope doctor --json` document: fields may
// be added, never renamed or dropped.
func WriteDoctorJSON(w io.Writer, servers []string, root string, locks int, fs []DoctorFinding) error {
	type findingJSON struct {
		Kind     string   `json:"kind"`
		Lock     *string  `json:"lock"`
		Node     string   `json:"node"`
		Session  *string  `json:"session"`
		Nodes    []string `json:"nodes,omitempty"`
		Detail   string   `json:"detail"`
		Severity string   `json:"severity"`
	}
	doc := struct {
		Schema   int           `json:"schema"`
		Servers  []string      `json:"servers"`
		Path     string        `json:"path"`
		Locks    int           `json:"locks"`
		Problems []findingJSON `json:"problems"`
	}{Schema: DoctorSchema, Servers: servers, Path: root, Locks: locks, Problems: []findingJSON{}}
	if doc.Servers == nil {
		doc.Servers = []string{}
	}
	for _, f := range fs {
		j := findingJSON{Kind: string(f.Kind), Node: f.Node, Nodes: slices.Clone(f.Nodes), Detail: f.Detail, Severity: f.Kind.Severity().String()}
		if f.Lock != "" {
			j.Lock = ptr(f.Lock)
		}
		if f.Session != 0 {
			j.Session = ptr(FormatSession(f.Session))
		}
		doc.Problems = append(doc.Problems, j)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
