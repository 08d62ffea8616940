package contracttest

import (
	"fmt"
	"maps"
	"regexp"
)

// A database lock's participant: session is the backend's id as decimal
// text, node the key, ctime null when unknown, watches the backends waited
// for (watch_kind "backends"); level, blocked_by and backend always there.
var (
	dbParticipant = func() map[string]string {
		m := maps.Clone(contractParticipant)
		m["ctime"] = jNullStr
		m["level"], m["blocked_by"], m["backend"] = jNullStr, jArray, "object|null"
		return m
	}()
	dbSession = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	dbWatches = regexp.MustCompile(`^[1-9][0-9]*(,[1-9][0-9]*)*$`)
)

// CheckDBParticipant is what is wrong with a database lock's participant p
// (at where) against the contract.
func CheckDBParticipant(where string, p Obj) []string {
	bad := checkFields(where, p, dbParticipant)
	if !dbSession.MatchString(p.Str("session")) || !p.Flag("ephemeral") {
		bad = append(bad, fmt.Sprintf("%s: session %q with ephemeral %v", where, p.Str("session"), p["ephemeral"]))
	}
	if s := p.Str("state"); s != "holding" && s != "waiting" {
		bad = append(bad, fmt.Sprintf("%s: state %q", where, s))
	}
	if !p.IsNull("ctime") && !ctimeText.MatchString(p.Str("ctime")) {
		bad = append(bad, fmt.Sprintf("%s: ctime %q", where, p.Str("ctime")))
	}
	switch {
	case p.IsNull("watches") != p.IsNull("watch_kind"):
		bad = append(bad, fmt.Sprintf("%s: watches %v but watch_kind %v", where, p["watches"], p["watch_kind"]))
	case !p.IsNull("watches") && (!dbWatches.MatchString(p.Str("watches")) || p.Str("watch_kind") != "backends"):
		bad = append(bad, fmt.Sprintf("%s: watches %q (%v)", where, p.Str("watches"), p["watch_kind"]))
	}
	if l := p["level"]; l != nil && l != "session" && l != "transaction" {
		bad = append(bad, fmt.Sprintf("%s: level %v", where, l))
	}
	return bad
}

// checkProblems checks l's problems.
func checkProblems(where string, l Obj) []string {
	var bad []string
	for i, pr := range l.Objs("problems") {
		bad = append(bad, checkFields(fmt.Sprintf("%s problem %d", where, i), pr, contractProblem)...)
	}
	return bad
}
