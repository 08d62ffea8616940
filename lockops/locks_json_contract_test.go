package lockops

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The `zkscope locks --json` contract (shared/locks-json.md), as a script
// reads it: JSON decoded into map[string]any, no struct of the package's
// own. The encoder (report_json.go) is the only writer; these are its
// readers' expectations.

// jsonObj is one decoded JSON object.
type jsonObj map[string]any

// decodeReport decodes a whole document.
func decodeReport(b []byte) (jsonObj, error) {
	var doc jsonObj
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// str is the string at k ("" when null or missing).
func (o jsonObj) str(k string) string { s, _ := o[k].(string); return s }

// num is the number at k (0 when null or missing).
func (o jsonObj) num(k string) int { f, _ := o[k].(float64); return int(f) }

// flag is the boolean at k (false when null or missing).
func (o jsonObj) flag(k string) bool { b, _ := o[k].(bool); return b }

// isNull says k is present and null.
func (o jsonObj) isNull(k string) bool { v, ok := o[k]; return ok && v == nil }

// objs is the array of objects at k.
func (o jsonObj) objs(k string) []jsonObj {
	a, _ := o[k].([]any)
	out := make([]jsonObj, 0, len(a))
	for _, v := range a {
		m, _ := v.(map[string]any)
		out = append(out, m)
	}
	return out
}

// strs is the array of strings at k.
func (o jsonObj) strs(k string) []string {
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
	}
	contractRecipes = []string{"curator.mutex", "curator.rwlock", "curator.semaphore-v2", "curator.leader-latch",
		"kazoo.lock", "kazoo.rwlock", "kazoo.semaphore", "go-zk.lock", "zookeeper.lock", "zookeeper.docs-rwlock", "unknown",
		"redis.setnx", "redlock", "redisson.lock", "redisson.fairlock",
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
func checkFields(where string, o jsonObj, want map[string]string) []string {
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

// checkContract checks a decoded document against the contract: every
// required field present with its type, and the values the contract
// spells out (schema 1, recipes, states, sessions, times, watch kinds).
func checkContract(t testing.TB, doc jsonObj) {
	t.Helper()
	bad := checkFields("report", doc, contractReport)
	if doc.num("schema") != 1 {
		bad = append(bad, fmt.Sprintf("schema %v, want 1", doc["schema"]))
	}
	for _, s := range doc["servers"].([]any) {
		if jsonType(s) != jString {
			bad = append(bad, fmt.Sprintf("servers: %v is not a string", s))
		}
	}
	for _, l := range doc.objs("locks") {
		bad = append(bad, checkLock(l)...)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

func checkLock(l jsonObj) []string {
	where := "lock " + l.str("path")
	bad := checkFields(where, l, contractLock)
	if !slices.Contains(contractRecipes, l.str("recipe")) {
		bad = append(bad, fmt.Sprintf("%s: recipe %q is not one of the contract's", where, l.str("recipe")))
	}
	redis := Kind(l.str("recipe")).IsRedis() // nodes are keys, not paths
	for i, p := range l.objs("participants") {
		bad = append(bad, checkParticipant(fmt.Sprintf("%s participant %d", where, i), p, redis)...)
	}
	for i, pr := range l.objs("problems") {
		bad = append(bad, checkFields(fmt.Sprintf("%s problem %d", where, i), pr, contractProblem)...)
	}
	for _, o := range l.objs("other_views") {
		bad = append(bad, checkLock(o)...)
	}
	return bad
}

func checkParticipant(where string, p jsonObj, redis bool) []string {
	want := contractParticipant
	if redis {
		want = maps.Clone(contractParticipant)
		maps.Copy(want, redisNulls)
	}
	bad := checkFields(where, p, want)
	if !redis && !strings.HasPrefix(p.str("node"), "/") {
		bad = append(bad, fmt.Sprintf("%s: node %q is not absolute", where, p.str("node")))
	}
	if s := p.str("state"); s != "holding" && s != "waiting" {
		bad = append(bad, fmt.Sprintf("%s: state %q", where, s))
	}
	switch {
	case redis && p.flag("ephemeral"):
		bad = append(bad, fmt.Sprintf("%s: a Redis key is not ephemeral", where))
	case !redis && (!sessionText.MatchString(p.str("session")) || (p.str("session") == "0x0") == p.flag("ephemeral")):
		bad = append(bad, fmt.Sprintf("%s: session %q with ephemeral %v", where, p.str("session"), p["ephemeral"]))
	}
	if !redis && !ctimeText.MatchString(p.str("ctime")) {
		bad = append(bad, fmt.Sprintf("%s: ctime %q", where, p.str("ctime")))
	}
	kind := p.str("watch_kind")
	switch {
	case p.isNull("watches") != p.isNull("watch_kind"):
		bad = append(bad, fmt.Sprintf("%s: watches %v but watch_kind %v", where, p["watches"], p["watch_kind"]))
	case !p.isNull("watches") && !strings.HasPrefix(p.str("watches"), "/"):
		bad = append(bad, fmt.Sprintf("%s: watches %q is not absolute", where, p.str("watches")))
	case !p.isNull("watch_kind") && kind != "data" && kind != "exists" && kind != "children":
		bad = append(bad, fmt.Sprintf("%s: watch_kind %q", where, kind))
	}
	switch src := p.str("held_since_source"); {
	case p.isNull("held_since") != p.isNull("held_since_source"):
		bad = append(bad, fmt.Sprintf("%s: held_since %v but held_since_source %v", where, p["held_since"], p["held_since_source"]))
	case !p.isNull("held_since") && (!ctimeText.MatchString(p.str("held_since")) || p.str("state") != "holding"):
		bad = append(bad, fmt.Sprintf("%s: held_since %q (state %s)", where, p.str("held_since"), p.str("state")))
	case !p.isNull("held_since_source") && src != "seen" && src != "txnlog" && src != "recording":
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
