package lockops

// Solr's overseer election (org.apache.solr.cloud.LeaderElector,
// OverseerElectionContext): each node creates the EPHEMERAL_SEQUENTIAL
// /overseer_elect/election/<sessionId>-<nodeName>-n_<seq> (no data; the
// session id in decimal). Sorted by the integer after "-n_", then by name:
// the first leads and writes the EPHEMERAL /overseer_elect/leader
// {"id":"<its election node's name>"}; each other one watches the node
// just before it with getData. joinAtHead creates a NON-sequential node
// reusing the second's sequence (a tie). A child without "-n_<digits>"
// makes LeaderElector fail. The same rules elect shard leaders
// (/collections/<c>/leader_elect/<shard>/election).

import (
	"cmp"
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Solr's node names.
const (
	solrMarker      = "-n_"
	SolrElectionDir = "election"
	SolrLeaderNode  = "leader"
)

// Solr is Solr's LeaderElector (solr.overseer).
var Solr = &Library{
	Name: "solr", Title: "Solr",
	parse:  parseSolr,
	kindOf: func(func(string) bool) Kind { return KindSolrOverseer },
}

// parseSolr accepts <digits>-<id>-n_<digits>.
func parseSolr(name string) (marker, seq string, ok bool) {
	i := strings.LastIndex(name, solrMarker)
	if i <= 0 {
		return "", "", false
	}
	seq = name[i+len(solrMarker):]
	if !allDigits(seq) {
		return "", "", false
	}
	sid, _, found := strings.Cut(name[:i], "-")
	if !found || !allDigits(sid) {
		return "", "", false
	}
	return solrMarker, seq, true
}

// decodeSolr orders an election directory as LeaderElector does, with the
// leader node (d.Context, when read) as context.
func decodeSolr(d Dir) Queue {
	type node struct {
		c   *Child
		seq int64
	}
	var ns []node
	for i := range d.Children {
		c := &d.Children[i]
		if _, s, ok := parseSolr(c.Name); ok {
			n, _ := strconv.ParseInt(s, 10, 64)
			ns = append(ns, node{c, n})
		}
	}
	slices.SortFunc(ns, func(a, b node) int { return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.c.Name, b.c.Name)) })
	var q Queue
	for i, n := range ns {
		_, s, _ := parseSolr(n.c.Name)
		p := participant(d.Path, n.c, ModeLeader, s)
		p.Payload = solrNodePayload(n.c.Name)
		if i == 0 {
			p.State = StateHolding
		} else {
			p.State, p.Watches, p.WatchKind = StateWaiting, q.Participants[i-1].Node, WatchData
		}
		q.Participants = append(q.Participants, p)
	}
	NumberPositions(q.Participants)
	if l := childNamed(d.Context, SolrLeaderNode); l != nil {
		q.Context, q.Problems = solrLeaderContext(d.Path, l, q.Participants)
	} else if len(q.Participants) > 0 && d.Context != nil {
		q.Problems = append(q.Problems, Problem{Kind: ProblemFailoverUnfinished, Node: JoinPath(path.Dir(d.Path), SolrLeaderNode),
			Detail: "no leader node: " + q.Participants[0].Name + " is first in line but has not (yet) taken over"})
	}
	return q
}

// solrNodePayload is what an election node's name says: the node name
// and the session (decimal in the name).
func solrNodePayload(name string) *Payload {
	i := strings.LastIndex(name, solrMarker)
	sid, id, _ := strings.Cut(name[:i], "-")
	p := &Payload{Fields: []Field{text("node_name", id)}}
	if n, err := strconv.ParseUint(sid, 10, 64); err == nil {
		p.Fields = append(p.Fields, text("session", FormatSession(int64(n))))
	}
	return p
}

// solrLeaderContext decodes the leader node l and checks it names the
// first in line.
func solrLeaderContext(dir string, l *Child, ps []Participant) ([]Field, []Problem) {
	var v struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(l.Data, &v); err != nil || v.ID == "" {
		return []Field{text("leader", DescribeDataWith(l.Data, 60, nil))}, nil
	}
	ctx := []Field{text("leader", v.ID)}
	if len(ps) > 0 && ps[0].Name != v.ID {
		return ctx, []Problem{{Kind: ProblemFailoverUnfinished, Node: l.Path,
			Detail: "the leader node names " + v.ID + " but " + ps[0].Name + " is first in line: the overseer election has not finished"}}
	}
	return ctx, nil
}

// SolrLeaderOf is the leader node of an overseer election directory
// (<parent>/election → <parent>/leader), "" for shard elections.
func SolrLeaderOf(dir string) string {
	if path.Base(dir) != SolrElectionDir || path.Base(path.Dir(dir)) != "overseer_elect" {
		return ""
	}
	return JoinPath(path.Dir(dir), SolrLeaderNode)
}
