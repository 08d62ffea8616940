package report

import (
	"bufio"
	"encoding/base64"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
)

// The `zkscope locks --json` document (shared/locks-json.md) is written
// here and only here: no struct mirrors it. Golden files and a round trip
// through encoding/json against the contract's field list check it
// (json_test.go).
//
// Beyond the contract's fields, a lock may carry "max_leases" (a
// semaphore's lease count, when known) and "other_views" (how each other
// library present in a mixed directory orders it, as lock objects of
// their own); a participant "data_encoding": "base64" (its data
// is not text) and "observed_watches" (the lock's nodes the servers list
// its session watching, when any: they differ from "watches" when a
// waiter is stuck or the client is another version); a problem
// "severity" ([lockops.ProblemKind.Severity]: "error", "warning" or "info";
// `zkscope doctor` does not count info).
//
// Times, on every participant: "age_ms" is the node's age, in ms from
// its "ctime" (the server's clock) to when zkscope read the lock (its
// own clock; 0 rather than negative when that is behind), null when the
// creation time is unknown (a Redis key, a waiter that owns no node) —
// an age, not how long a holder has held: a node holds from when those
// before it left. "held_since" is when a holder began to hold, as
// "ctime" is written, where that is known, else null (always null for a
// waiter); "held_since_source" says how it is known: "seen" (zkscope's
// reads saw it turn holding, or appear holding after its first read:
// `locks --watch`), "txnlog" or "recording" (`history --at` replayed
// it), null when "held_since" is.
//
// Single-node locks and elections (recipes kafka.controller, hadoop.ha,
// hbase.master, solr.overseer, zookeeper.ephemeral-lock) add "payload"
// to a participant (its data decoded in its system's format, an object of
// strings and numbers) or "payload_error" (why it did not parse: "data"
// is the raw data), and "context" to the lock (the controller epoch and
// brokers, HDFS's breadcrumb, Solr's leader node). A waiter that owns no
// node (Kafka's brokers, HDFS's failover controllers, a plain ephemeral
// lock's waiters, seen in the servers' watch lists) has "own_node":
// false, "node" the node it watches (the same as "watches"), "seq" null,
// "ephemeral" true, "data" "" and "ctime" 0001-01-01T00:00:00.000Z.
//
// Redis locks (recipes redis.setnx, redlock, redisson.lock,
// redisson.fairlock) follow the same schema: a participant's "node" is
// its key (key@host:port on one master of a Redlock; a fair-lock waiter's
// is the queue's key), "data" its token (a Redisson <uuid>:<threadId>),
// "ephemeral" false, and "session" and "ctime" null: Redis has no
// sessions and keeps no creation time, and "0x0" or a zero time would
// read as a ZooKeeper persistent node's and a real date. They add
// "ttl_ms" (the key's remaining time, null when it never expires; a
// waiter's time to its deadline, negative once passed), "holds" (a
// Redisson holder's re-entry count), and on the lock "validity_ms" (what
// is left of a held Redlock).

// ReportSchema is the version of the `zkscope locks --json` document.
const ReportSchema = 1

// WriteJSON writes the `zkscope locks --json` document (compact, one
// participant per line). It streams: a 10,000-contender lock is megabytes,
// and is never held as one encoded buffer.
func WriteJSON(w io.Writer, servers []string, queues []lockops.Queue) error {
	return WriteJSONWith(w, servers, queues, nil)
}

// WriteJSONWith is [WriteJSON] with the report's "verification" object
// (what the servers could not confirm and why; left out when v is nil).
func WriteJSONWith(w io.Writer, servers []string, queues []lockops.Queue, v *diagnose.Verification) error {
	return WriteJSONReport(w, servers, queues, v, nil)
}

// WriteJSONReport is [WriteJSONWith] with the scan's problems that belong
// to no lock (unreadable subtrees, scan.Unreadable): a top-level "problems"
// array, written only when there are some.
func WriteJSONReport(w io.Writer, servers []string, queues []lockops.Queue, v *diagnose.Verification, scanProblems []lockops.Problem) error {
	return writeReport(w, servers, queues, v, scanProblems, nil)
}

// WriteJSONChanges is [WriteJSONReport] of the locks that changed since
// the previous report (`locks --watch --json --changes`): the same
// document with "changes": true and "gone", the paths of the locks that
// went away (sorted; [] when none).
func WriteJSONChanges(w io.Writer, servers []string, changed []lockops.Queue, gone []string, v *diagnose.Verification, scanProblems []lockops.Problem) error {
	if gone == nil {
		gone = []string{}
	}
	return writeReport(w, servers, changed, v, scanProblems, gone)
}

// writeReport writes the report; gone not nil: a report of changes.
func writeReport(w io.Writer, servers []string, queues []lockops.Queue, v *diagnose.Verification, scanProblems []lockops.Problem, gone []string) error {
	d := docWriter{bw: bufio.NewWriterSize(w, reportBuffer(queues))} // a 10,000-contender report is ~4 MB
	var vJSON []byte
	if v != nil {
		var err error
		if vJSON, err = encodeVerification(v); err != nil {
			return err
		}
	}
	return d.report(servers, queues, vJSON, scanProblems, gone)
}

// appendParticipantJSON appends p's object, newline included, without
// reflection or a copy: a 10,000-contender report is mostly participants.
// Strings are quoted as encoding/json quotes them with HTML escaping off.
// A Redis lock's participant (redis) has a null session and ctime; age_ms
// counts from ctime to readAt (its queue's [lockops.Queue.ReadAt]).
func appendParticipantJSON(b []byte, p *lockops.Participant, times *ctimes, redis bool, readAt time.Time) []byte {
	b = appendPlaceJSON(b, p, redis)
	b = appendWaitJSON(b, p, times, redis)
	b = appendTimesJSON(b, p, times, redis, readAt)
	b = appendExtrasJSON(b, p)
	return append(b, "}\n"...)
}

// appendPlaceJSON opens p's object with who it is and its place in the
// queue: node, seq, mode, state, position, session, ephemeral, client,
// data.
func appendPlaceJSON(b []byte, p *lockops.Participant, redis bool) []byte {
	b = append(b, `{"node":`...)
	b = appendJSONString(b, p.Node)
	b = append(b, `,"seq":`...)
	if p.HasSeq {
		b = strconv.AppendInt(b, p.Seq, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"mode":`...)
	b = appendJSONString(b, string(p.Mode))
	b = append(b, `,"state":`...)
	b = appendJSONString(b, string(p.State))
	b = append(b, `,"position":`...)
	b = strconv.AppendInt(b, int64(p.Position), 10)
	switch {
	case redis:
		b = append(b, `,"session":null,"ephemeral":`...)
	case p.DB != nil: // a database backend's id (pid, connection id)
		b = append(b, `,"session":"`...)
		b = strconv.AppendInt(b, p.Session, 10)
		b = append(b, `","ephemeral":`...)
	default:
		b = append(b, `,"session":"0x`...)
		b = strconv.AppendUint(b, uint64(p.Session), 16)
		b = append(b, `","ephemeral":`...)
	}
	b = strconv.AppendBool(b, p.Ephemeral)
	b = append(b, `,"client":`...)
	b = appendJSONStringOrNull(b, p.Client)
	b = append(b, `,"data":`...)
	if utf8.Valid(p.Data) {
		return appendJSONString(b, string(p.Data))
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, p.Data)
	return append(b, `","data_encoding":"base64"`...)
}

// appendWaitJSON appends p's ctime and what it waits on: watches,
// watch_kind, watch_observed.
func appendWaitJSON(b []byte, p *lockops.Participant, times *ctimes, redis bool) []byte {
	if redis || p.DB != nil && p.Ctime.IsZero() {
		b = append(b, `,"ctime":null,"watches":`...)
	} else {
		b = append(b, `,"ctime":"`...)
		b = times.append(b, p.Ctime)
		b = append(b, `","watches":`...)
	}
	b = appendJSONStringOrNull(b, p.Watches)
	b = append(b, `,"watch_kind":`...)
	if p.Watches != "" {
		b = appendJSONString(b, string(p.WatchKind))
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"watch_observed":`...)
	if p.WatchObserved != nil {
		return strconv.AppendBool(b, *p.WatchObserved)
	}
	return append(b, "null"...)
}

// appendTimesJSON appends p's age_ms, held_since and held_since_source.
func appendTimesJSON(b []byte, p *lockops.Participant, times *ctimes, redis bool, readAt time.Time) []byte {
	b = append(b, `,"age_ms":`...)
	if redis || p.WatcherOnly || p.Ctime.IsZero() || readAt.IsZero() {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, max(readAt.Sub(p.Ctime).Milliseconds(), 0), 10)
	}
	b = append(b, `,"held_since":`...)
	if p.HeldSince.IsZero() {
		return append(b, `null,"held_since_source":null`...)
	}
	b = append(b, '"')
	b = times.append(b, p.HeldSince)
	b = append(b, `","held_since_source":`...)
	return appendJSONString(b, string(p.HeldSource))
}

// appendExtrasJSON appends p's fields beyond the contract's, each only
// when it has one: observed_watches, ttl_ms, holds, own_node, payload.
func appendExtrasJSON(b []byte, p *lockops.Participant) []byte {
	if len(p.ObservedWatches) > 0 {
		b = append(b, `,"observed_watches":[`...)
		for i, w := range p.ObservedWatches {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, w)
		}
		b = append(b, ']')
	}
	if p.HasTTL {
		b = append(b, `,"ttl_ms":`...)
		if p.TTL == lockops.NoExpiry {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, p.TTL.Milliseconds(), 10)
		}
	}
	if p.Holds > 0 {
		b = append(b, `,"holds":`...)
		b = strconv.AppendInt(b, int64(p.Holds), 10)
	}
	if p.WatcherOnly {
		b = append(b, `,"own_node":false`...)
	}
	if p.DB != nil {
		b = appendDBJSON(b, p.DB)
	}
	return appendPayloadJSON(b, p.Payload)
}

// AppendProblemJSON appends pr's object, newline included. A problem of
// the whole lock (mixed libraries, sequence overflow) names the lock's
// path, lockPath, as its node: the contract wants a node on every problem.
func AppendProblemJSON(b []byte, pr *lockops.Problem, lockPath string) []byte {
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, string(pr.Kind))
	b = append(b, `,"node":`...)
	if pr.Node != "" {
		b = appendJSONString(b, pr.Node)
	} else {
		b = appendJSONString(b, lockPath)
	}
	b = append(b, `,"detail":`...)
	b = appendJSONString(b, pr.Detail)
	b = append(b, `,"severity":"`...)
	b = append(b, pr.Severity().String()...)
	return append(b, "\"}\n"...)
}

func appendJSONStringOrNull(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendJSONString(b, s)
}

// ctimes formats creation times as the JSON contract has them
// (2006-01-02T15:04:05.000Z, UTC), keeping the text of the last second
// formatted: a queue's nodes are mostly made within a few seconds, so most
// times cost three digits instead of a whole layout.
type ctimes struct {
	sec    int64  // the second prefix is of
	prefix []byte // "2006-01-02T15:04:05."
}

func (c *ctimes) append(b []byte, t time.Time) []byte {
	ms := t.UnixMilli()
	sec := ms / 1000
	if ms%1000 < 0 {
		sec-- // before 1970: the second below
	}
	if c.prefix == nil || sec != c.sec {
		c.sec = sec
		c.prefix = time.UnixMilli(sec*1000).UTC().AppendFormat(c.prefix[:0], "2006-01-02T15:04:05.")
	}
	milli := ms - sec*1000
	b = append(b, c.prefix...)
	return append(b, byte('0'+milli/100), byte('0'+milli/10%10), byte('0'+milli%10), 'Z')
}

// plainPrefix is the length of the longest prefix of s that JSON quotes as
// it is (printable ASCII but '"' and '\\'), found eight bytes at a time.
func plainPrefix(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		control := (w - ones*0x20) &^ w & highs // a byte below 0x20
		q := w ^ ones*'"'
		bs := w ^ ones*'\\'
		quote := (q - ones) &^ q & highs // a byte that is '"'
		back := (bs - ones) &^ bs & highs
		if control|quote|back|w&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			break
		}
	}
	return i
}

// appendJSONString appends s quoted as encoding/json does with HTML
// escaping off: control characters, quote and backslash escaped, invalid
// UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := plainPrefix(s); i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendPayloadJSON appends `,"payload":{…}` or `,"payload_error":"…"`
// for a decoded payload, nothing for nil.
func appendPayloadJSON(b []byte, p *lockops.Payload) []byte {
	switch {
	case p == nil:
		return b
	case p.Err != "":
		b = append(b, `,"payload_error":`...)
		return appendJSONString(b, p.Err)
	}
	b = append(b, `,"payload":`...)
	return appendFieldsJSON(b, p.Fields)
}

// appendFieldsJSON appends fields as one JSON object.
func appendFieldsJSON(b []byte, fields []lockops.Field) []byte {
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.Key)
		b = append(b, ':')
		if f.Num {
			b = append(b, f.Value...)
		} else {
			b = appendJSONString(b, f.Value)
		}
	}
	return append(b, '}')
}
