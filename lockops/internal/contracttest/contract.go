// Package contracttest checks a `zkscope locks --json` document against
// its contract (shared/locks-json.md) as a script reads it: JSON decoded
// into maps, no struct of lockops' own.
//
// Tests only: no package but a test imports it.
package contracttest

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/lockops"
)

// The encoder (lockops/report) is the contract's only writer; these are
// its readers' expectations.

// Obj is one decoded JSON object.
type Obj map[string]any

// DecodeReport decodes a whole document.
func DecodeReport(b []byte) (Obj, error) {
	var doc Obj
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// Str is the string at k ("" when null or missing).
func (o Obj) Str(k string) string { s, _ := o[k].(string); return s }

// Num is the number at k (0 when null or missing).
func (o Obj) Num(k string) int { f, _ := o[k].(float64); return int(f) }

// Flag is the boolean at k (false when null or missing).
func (o Obj) Flag(k string) bool { b, _ := o[k].(bool); return b }

// IsNull says k is present and null.
func (o Obj) IsNull(k string) bool { v, ok := o[k]; return ok && v == nil }

// Objs is the array of objects at k.
func (o Obj) Objs(k string) []Obj {
	a, _ := o[k].([]any)
	out := make([]Obj, 0, len(a))
	for _, v := range a {
		m, _ := v.(map[string]any)
		out = append(out, m)
	}
	return out
}

// Strs is the array of strings at k.
func (o Obj) Strs(k string) []string {
	a, _ := o[k].([]any)
	out := make([]string, 0, len(a))
	for _, v := range a {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// JSON types as the contract names them; "T|null" allows null.
const (
	jString  = "string"
	jNumber  = "number"
	jBool    = "boolean"
	jArray   = "array"
	jNullStr = "string|null"
	jNullNum = "number|null"
	jNullBol = "boolean|null"
)

// The contract's fields, every one required, with their types. seq is
// null for a child that carries no sequence number (a stray node the
// library still counts); the contract's example has only numbers.
var (
	contractReport      = map[string]string{"schema": jNumber, "servers": jArray, "locks": jArray}
	contractLock        = map[string]string{"path": jString, "recipe": jString, "participants": jArray, "problems": jArray}
	contractParticipant = map[string]string{
		"node": jString, "seq": jNullNum, "mode": jString, "state": jString, "position": jNumber,
		"session": jString, "ephemeral": jBool, "client": jNullStr, "data": jString, "ctime": jString,
		"watches": jNullStr, "watch_kind": jNullStr, "watch_observed": jNullBol,
		// Added to the contract: the node's age and, where known, when a
		// holder began to hold and how that is known.
		"age_ms": jNullNum, "held_since": jNullStr, "held_since_source": jNullStr,
	}
	// A Redis lock's participant has no session and no creation time:
	// both null, the other fields as the contract's.
	redisNulls = map[string]string{"session": "null", "ctime": "null"}
	// Every problem names a node: a problem of the whole lock (mixed
	// libraries, sequence overflow) names the lock's path.
	contractProblem = map[string]string{"kind": jString, "node": jString, "detail": jString}
	// Optional fields: their type when present.
	optionalTypes = map[string]string{
		"max_leases": jNumber, "other_views": jArray, "data_encoding": jString,
		"observed_watches": jArray, "severity": jString,
		"ttl_ms": jNullNum, "holds": jNumber, "validity_ms": jNumber,
		"payload": "object", "payload_error": jString, "own_node": jBool, "context": "object",
		"level": jNullStr, "blocked_by": jArray, "backend": "object|null",
	}
	contractRecipes = []string{"curator.mutex", "curator.rwlock", "curator.semaphore-v2", "curator.leader-latch",
		"kazoo.lock", "kazoo.rwlock", "kazoo.semaphore", "go-zk.lock", "zookeeper.lock", "zookeeper.docs-rwlock", "unknown",
		"redis.setnx", "redlock", "redisson.lock", "redisson.fairlock", "postgres.advisory", "mysql.get_lock",
		"kafka.controller", "hadoop.ha", "hbase.master", "solr.overseer", "zookeeper.ephemeral-lock"}
	sessionText = regexp.MustCompile(`^0x(0|[1-9a-f][0-9a-f]*)$`)
	ctimeText   = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
)

// jsonType names v's JSON type as decoded by encoding/json.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return jString
	case float64:
		return jNumber
	case bool:
		return jBool
	case []any:
		return jArray
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// checkFields reports every field of want missing from o or of the wrong
// type, and optional fields of the wrong type.
func checkFields(where string, o Obj, want map[string]string) []string {
	var bad []string
	for k, typ := range want {
		v, ok := o[k]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: %q missing", where, k))
			continue
		}
		if got := jsonType(v); !slices.Contains(strings.Split(typ, "|"), got) {
			bad = append(bad, fmt.Sprintf("%s: %q is %s, want %s", where, k, got, typ))
		}
	}
	for k, typ := range optionalTypes {
		if _, required := want[k]; required {
			continue
		}
		if v, ok := o[k]; ok && !slices.Contains(strings.Split(typ, "|"), jsonType(v)) {
			bad = append(bad, fmt.Sprintf("%s: %q is %s, want %s", where, k, jsonType(v), typ))
		}
	}
	return bad
}

// Check checks a decoded document against the contract: every
// required field present with its type, and the values the contract
// spells out (schema 1, recipes, states, sessions, times, watch kinds).
func Check(t testing.TB, doc Obj) {
	t.Helper()
	bad := checkFields("report", doc, contractReport)
	if doc.Num("schema") != 1 {
		bad = append(bad, fmt.Sprintf("schema %v, want 1", doc["schema"]))
	}
	for _, s := range doc["servers"].([]any) {
		if jsonType(s) != jString {
			bad = append(bad, fmt.Sprintf("servers: %v is not a string", s))
		}
	}
	for _, l := range doc.Objs("locks") {
		bad = append(bad, checkLock(l)...)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

func checkLock(l Obj) []string {
	where := "lock " + l.Str("path")
	bad := checkFields(where, l, contractLock)
	if !slices.Contains(contractRecipes, l.Str("recipe")) {
		bad = append(bad, fmt.Sprintf("%s: recipe %q is not one of the contract's", where, l.Str("recipe")))
	}
	redis := lockops.Kind(l.Str("recipe")).IsRedis() // nodes are keys, not paths
	if lockops.Kind(l.Str("recipe")).IsDB() {
		for i, p := range l.Objs("participants") {
			bad = append(bad, CheckDBParticipant(fmt.Sprintf("%s participant %d", where, i), p)...)
		}
		return append(bad, checkProblems(where, l)...)
	}
	for i, p := range l.Objs("participants") {
		bad = append(bad, CheckParticipant(fmt.Sprintf("%s participant %d", where, i), p, redis)...)
	}
	for i, pr := range l.Objs("problems") {
		bad = append(bad, checkFields(fmt.Sprintf("%s problem %d", where, i), pr, contractProblem)...)
	}
	for _, o := range l.Objs("other_views") {
		bad = append(bad, checkLock(o)...)
	}
	return bad
}

// CheckParticipant is what is wrong with participant p (at where; of a
// Redis lock when redis) against the contract.
func CheckParticipant(where string, p Obj, redis bool) []string {
	want := contractParticipant
	if redis {
		want = maps.Clone(contractParticipant)
		maps.Copy(want, redisNulls)
	}
	bad := checkFields(where, p, want)
	if !redis && !strings.HasPrefix(p.Str("node"), "/") {
		bad = append(bad, fmt.Sprintf("%s: node %q is not absolute", where, p.Str("node")))
	}
	if s := p.Str("state"); s != "holding" && s != "waiting" {
		bad = append(bad, fmt.Sprintf("%s: state %q", where, s))
	}
	switch {
	case redis && p.Flag("ephemeral"):
		bad = append(bad, fmt.Sprintf("%s: a Redis key is not ephemeral", where))
	case !redis && (!sessionText.MatchString(p.Str("session")) || (p.Str("session") == "0x0") == p.Flag("ephemeral")):
		bad = append(bad, fmt.Sprintf("%s: session %q with ephemeral %v", where, p.Str("session"), p["ephemeral"]))
	}
	if !redis && !ctimeText.MatchString(p.Str("ctime")) {
		bad = append(bad, fmt.Sprintf("%s: ctime %q", where, p.Str("ctime")))
	}
	kind := p.Str("watch_kind")
	switch {
	case p.IsNull("watches") != p.IsNull("watch_kind"):
		bad = append(bad, fmt.Sprintf("%s: watches %v but watch_kind %v", where, p["watches"], p["watch_kind"]))
	case !p.IsNull("watches") && !strings.HasPrefix(p.Str("watches"), "/"):
		bad = append(bad, fmt.Sprintf("%s: watches %q is not absolute", where, p.Str("watches")))
	case !p.IsNull("watch_kind") && kind != "data" && kind != "exists" && kind != "children":
		bad = append(bad, fmt.Sprintf("%s: watch_kind %q", where, kind))
	}
	switch src := p.Str("held_since_source"); {
	case p.IsNull("held_since") != p.IsNull("held_since_source"):
		bad = append(bad, fmt.Sprintf("%s: held_since %v but held_since_source %v", where, p["held_since"], p["held_since_source"]))
	case !p.IsNull("held_since") && (!ctimeText.MatchString(p.Str("held_since")) || p.Str("state") != "holding"):
		bad = append(bad, fmt.Sprintf("%s: held_since %q (state %s)", where, p.Str("held_since"), p.Str("state")))
	case !p.IsNull("held_since_source") && src != "seen" && src != "txnlog" && src != "recording":
		bad = append(bad, fmt.Sprintf("%s: held_since_source %q", where, src))
	}
	if age, ok := p["age_ms"].(float64); ok && (age < 0 || redis) {
		bad = append(bad, fmt.Sprintf("%s: age_ms %v", where, age))
	}
	if e, ok := p["data_encoding"]; ok && e != "base64" {
		bad = append(bad, fmt.Sprintf("%s: data_encoding %v", where, e))
	}
	return bad
}
