// Package redislock is Redis locks: the one definition of which keys are
// locks ([Locks], [IsLock]) and their decoding into the recipe model's
// queues (decode.go), their diagnosis, taking and holding them with a
// token (take.go, held.go: [Take], [Held]), and force-deleting them while
// the token shown is held (evict.go).
//
// It talks to Redis through redisview (of zkview it uses only the
// read-only refusal's error); it imports nothing of ui or cmd.
package redislock

// Redis locks (shared/lock-recipes.md, "Redis locks"): pure decoders from
// the keys redisview reads, one or several masters, to queues.
//
//   - redis.setnx: a string key holding a token, set with SET NX PX
//     (redis-py's Lock: uuid1().hex; redsync: 16 random bytes in base64;
//     node-redlock and hand-written locks alike). One holder; the key's
//     remaining time is how long the lock has left.
//   - redlock: the same string key on several masters (redsync with
//     several pools). A token held on a quorum, len(masters)/2+1, holds
//     the lock; counting the configured masters, unreachable ones included.
//   - redisson.lock: a hash whose field <uuid>:<threadId> counts the
//     holder's re-entries, with the lease as the key's expiry.
//   - redisson.fairlock: the same hash, plus the waiters in order
//     (redisson_lock_queue:{name}, a list) and each waiter's deadline in
//     ms since the epoch (redisson_lock_timeout:{name}, a sorted set).
//
// Redis keeps no creation time and no session: a Redis participant has
// Session 0, Ephemeral false and a zero Ctime, and its TTL instead.

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/redisview"
)

// Decode decodes every lock in reads, one read per configured server
// in the order given, as of now (the fair-lock deadlines are times). With
// one server each key is its own lock; with several, a string key is a
// Redlock across them and any other lock key is decoded per master, named
// key@host:port. A server that could not be read counts as not holding.
// It is a pure function of its arguments; queues come sorted by path.
func Decode(reads []redisview.Read, now time.Time) []lockops.Queue {
	if len(reads) == 1 {
		var out []lockops.Queue
		for i := range reads[0].Keys {
			if q, ok := decodeRedisKey(&reads[0].Keys[i], "", now); ok {
				out = append(out, q)
			}
		}
		return out
	}
	strs := map[string][]*redisview.Key{} // name → per master (nil: absent)
	var out []lockops.Queue
	for m, r := range reads {
		for i := range r.Keys {
			k := &r.Keys[i]
			if k.Type != "string" {
				if q, ok := decodeRedisKey(k, "@"+r.Addr, now); ok {
					out = append(out, q)
				}
				continue
			}
			if strs[k.Name] == nil {
				strs[k.Name] = make([]*redisview.Key, len(reads))
			}
			strs[k.Name][m] = k
		}
	}
	for name, per := range strs {
		out = append(out, decodeRedlock(name, reads, per))
	}
	slices.SortFunc(out, func(a, b lockops.Queue) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

// redisTokenLike matches the tokens the lock libraries write: redis-py's
// uuid1().hex, a UUID, redsync's 16 random bytes in base64.
var redisTokenLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9a-f]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z0-9+/]{22}==)$`)
}) // compiled when first used, not at every start

// redisLockish are words in a key's name that make a string key a lock.
var redisLockish = []string{"lock", "mutex", "leader", "semaphore"}

// Locks are the locks among reads as of now: decoded ([Decode]), the
// keys [IsLock] counts as locks, diagnosed together ([Diagnose]). Every
// reader shows these: `locks`, `doctor` and the terminal UI.
func Locks(reads []redisview.Read, now time.Time) []lockops.Queue {
	queues := slices.DeleteFunc(Decode(reads, now), func(q lockops.Queue) bool { return !IsLock(q) })
	Diagnose(queues, DiagnoseOptions{})
	return queues
}

// IsLock decides whether a key [Decode] decoded is a lock, for
// every reader alike (`locks`, `doctor`, `evict`, the terminal UI): every
// Redisson layout; a string key (which [Decode] decodes as a SET NX
// lock whatever it holds) when its name says lock, or when it expires and
// holds a token of a known library. Other strings (caches, counters) are
// plain keys. [Locks] applies it for every reader.
func IsLock(q lockops.Queue) bool {
	switch q.Kind {
	case lockops.KindRedissonLock, lockops.KindRedissonFairLock:
		return true
	case lockops.KindRedisSetNX, lockops.KindRedlock:
	default:
		return false
	}
	name := strings.ToLower(q.Path)
	for _, w := range redisLockish {
		if strings.Contains(name, w) {
			return true
		}
	}
	for _, p := range q.Participants {
		if p.HasTTL && p.TTL != lockops.NoExpiry && redisTokenLike().Match(p.Data) {
			return true
		}
	}
	return false
}

// decodeRedisKey decodes one key of one server (suffix "@host:port" for a
// Redlock master's own locks, else ""); false when it is no lock.
func decodeRedisKey(k *redisview.Key, suffix string, now time.Time) (lockops.Queue, bool) {
	switch {
	case k.Type == "string":
		q := lockops.Queue{Path: k.Name + suffix, Kind: lockops.KindRedisSetNX,
			Participants: []lockops.Participant{redisHolder(k.Name+suffix, k.Value, k.TTL)}}
		q.Problems = noExpiryProblems(q.Participants)
		return q, true
	case k.Type == "hash" || k.Queue != nil || k.Deadlines != nil:
		return decodeRedisson(k, suffix, now)
	}
	return lockops.Queue{}, false
}

// redisHolder is a holding participant (node: the key, with its master
// when one of several) with token and ttl.
func redisHolder(node string, token []byte, ttl time.Duration) lockops.Participant {
	return lockops.Participant{Node: node, Name: node, Mode: lockops.ModeExclusive, State: lockops.StateHolding,
		Data: token, TTL: ttl, HasTTL: true}
}

func noExpiryProblems(ps []lockops.Participant) []lockops.Problem {
	var out []lockops.Problem
	for _, p := range ps {
		if p.State == lockops.StateHolding && p.HasTTL && p.TTL == lockops.NoExpiry {
			out = append(out, lockops.Problem{Kind: lockops.ProblemRedisNoExpiry, Node: p.Node,
				Detail: "the key never expires: if its holder dies without releasing, nobody ever gets the lock"})
		}
	}
	return out
}

// redlockDrift is the clock drift Redlock takes off the validity: 1% of
// the expiry plus 2 ms (the Redlock algorithm's; redsync v4 takes the 1%
// alone, so this errs by 2 ms on the safe side).
func redlockDrift(expiry time.Duration) time.Duration {
	return expiry/100 + 2*time.Millisecond
}

// decodeRedlock decodes string key name across the masters: per[i] is the
// key on reads[i], nil when absent or unreadable.
func decodeRedlock(name string, reads []redisview.Read, per []*redisview.Key) lockops.Queue {
	q := lockops.Queue{Path: name, Kind: lockops.KindRedlock}
	quorum := len(reads)/2 + 1
	count := map[string]int{}
	var tokens []string // in order of first master
	for _, k := range per {
		if k != nil {
			if count[string(k.Value)] == 0 {
				tokens = append(tokens, string(k.Value))
			}
			count[string(k.Value)]++
		}
	}
	major, held := "", false
	for _, t := range tokens {
		if count[t] >= quorum {
			major, held = t, true
		}
	}
	var holders, others []lockops.Participant
	for m, k := range per {
		if k == nil {
			continue
		}
		p := redisHolder(name+"@"+reads[m].Addr, k.Value, k.TTL)
		if held && string(k.Value) == major {
			holders = append(holders, p)
		} else {
			p.State = lockops.StateWaiting // a partial acquire: no client holds through it
			others = append(others, p)
		}
	}
	q.Participants = lockops.NumberPositions(append(holders, others...))
	q.Problems = noExpiryProblems(holders)
	for _, r := range reads {
		if r.Err != nil {
			q.Problems = append(q.Problems, lockops.Problem{Kind: lockops.ProblemRedisUnreachable, Node: name + "@" + r.Addr,
				Detail: "this master could not be read: counted as not holding"})
		}
	}
	if held {
		q.Validity, q.HasValidity = redlockValidity(holders)
	} else {
		q.Problems = append(q.Problems, lockops.Problem{Kind: lockops.ProblemRedlockMinority, Detail: minorityDetail(tokens, count, len(reads), quorum)})
	}
	if len(tokens) > 1 {
		q.Problems = append(q.Problems, lockops.Problem{Kind: lockops.ProblemRedlockSplit,
			Detail: "different tokens on different masters: " + describeTokens(tokens, per, reads)})
	}
	return q
}

// minorityDetail says how far the best-placed token is from a quorum:
// keys of different tokens on different masters are no majority together.
func minorityDetail(tokens []string, count map[string]int, masters, quorum int) string {
	best := 0
	for _, t := range tokens {
		best = max(best, count[t])
	}
	if len(tokens) > 1 {
		return fmt.Sprintf("%d tokens, none on a quorum of %d masters (the most: %d of %d): no client holds this Redlock, and none can take it until these keys expire if too few masters are left free",
			len(tokens), quorum, best, masters)
	}
	return fmt.Sprintf("on %d of %d masters, below the quorum of %d: no client holds this Redlock, and none can take it until these keys expire if too few masters are left free",
		best, masters, quorum)
}

// redlockValidity is what is left of a held Redlock, seen from outside:
// the smallest remaining time among the majority's keys less the drift of
// the largest (the original expiry is not stored; it is at least that).
// None when a key never expires.
func redlockValidity(holders []lockops.Participant) (time.Duration, bool) {
	least, most := holders[0].TTL, holders[0].TTL
	for _, p := range holders {
		if p.TTL == lockops.NoExpiry {
			return 0, false
		}
		least, most = min(least, p.TTL), max(most, p.TTL)
	}
	return max(least-redlockDrift(most), 0), true
}

func describeTokens(tokens []string, per []*redisview.Key, reads []redisview.Read) string {
	var parts []string
	for _, t := range tokens {
		var on []string
		for m, k := range per {
			if k != nil && string(k.Value) == t {
				on = append(on, reads[m].Addr)
			}
		}
		parts = append(parts, fmt.Sprintf("%s on %s", report.DescribeData([]byte(t), 24), strings.Join(on, ", ")))
	}
	return strings.Join(parts, "; ")
}

// redissonHolder parses a Redisson lock hash field <uuid>:<threadId> with
// its re-entry count; false when the field is not one.
func redissonHolder(field, count string) (int, bool) {
	i := strings.LastIndexByte(field, ':')
	if i <= 0 {
		return 0, false
	}
	if _, err := strconv.ParseInt(field[i+1:], 10, 64); err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// decodeRedisson decodes a Redisson lock hash and, when present, its fair
// lock's queue and deadlines.
func decodeRedisson(k *redisview.Key, suffix string, now time.Time) (lockops.Queue, bool) {
	q := lockops.Queue{Path: k.Name + suffix, Kind: lockops.KindRedissonLock}
	fields := make([]string, 0, len(k.Fields))
	for f := range k.Fields {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	for _, f := range fields {
		n, ok := redissonHolder(f, k.Fields[f])
		if !ok {
			return lockops.Queue{}, false // a hash, but no Redisson lock
		}
		p := redisHolder(k.Name+suffix, []byte(f), k.TTL)
		p.Holds = n
		q.Participants = append(q.Participants, p)
	}
	q.Problems = noExpiryProblems(q.Participants)
	if k.Queue == nil && k.Deadlines == nil {
		if len(q.Participants) == 0 {
			return lockops.Queue{}, false
		}
		return q, true
	}
	q.Kind = lockops.KindRedissonFairLock
	node := redisview.FairLockKey(redisview.QueuePrefix, k.Name) + suffix
	for _, w := range k.Queue {
		p := lockops.Participant{Node: node, Name: node, Mode: lockops.ModeExclusive, State: lockops.StateWaiting, Data: []byte(w)}
		if d, ok := k.Deadlines[w]; ok {
			p.TTL, p.HasTTL = time.UnixMilli(d).Sub(now), true
			if p.TTL <= 0 {
				q.Problems = append(q.Problems, lockops.Problem{Kind: lockops.ProblemFairWaiterExpired, Node: node,
					Detail: fmt.Sprintf("waiter %s: its deadline passed %s ago but it is still queued (Redisson drops it only when a later lock or unlock call finds it first in line)", w, lockops.FormatAge(-p.TTL))})
			}
		}
		q.Participants = append(q.Participants, p)
	}
	lockops.NumberPositions(q.Participants)
	return q, true
}

// DiagnoseOptions tune [Diagnose].
type DiagnoseOptions struct {
	// ExpiringWithin flags a held key with less time left than this (0: 1s).
	ExpiringWithin time.Duration
	// OutlierFactor flags a key whose expiry is this many times the median
	// of the others read with it, among at least 3 (0: 10).
	OutlierFactor int
}

// Diagnose adds the problems that need more than one key: a key about
// to expire, and an expiry far above the others read with it (the same
// pattern). Whether a holder still runs cannot be seen from Redis: a key
// about to expire is flagged because, if it does, it loses the lock
// without knowing.
func Diagnose(queues []lockops.Queue, o DiagnoseOptions) {
	if o.ExpiringWithin <= 0 {
		o.ExpiringWithin = time.Second
	}
	if o.OutlierFactor <= 0 {
		o.OutlierFactor = 10
	}
	var ttls []time.Duration
	for _, q := range queues {
		for _, p := range q.Holders() {
			if p.HasTTL && p.TTL != lockops.NoExpiry {
				ttls = append(ttls, p.TTL)
			}
		}
	}
	slices.Sort(ttls)
	var median time.Duration
	if len(ttls) >= 3 {
		median = ttls[len(ttls)/2]
	}
	for qi := range queues {
		q := &queues[qi]
		for _, p := range q.Holders() {
			if !p.HasTTL || p.TTL == lockops.NoExpiry {
				continue
			}
			if p.TTL < o.ExpiringWithin {
				q.Problems = append(q.Problems, lockops.Problem{Kind: lockops.ProblemRedisExpiring, Node: p.Node,
					Detail: fmt.Sprintf("expires in %dms: if its holder is still working it loses the lock without knowing, and another client may take it", p.TTL.Milliseconds())})
			}
			if median > 0 && p.TTL > median*time.Duration(o.OutlierFactor) {
				q.Problems = append(q.Problems, lockops.Problem{Kind: lockops.ProblemRedisTTLOutlier, Node: p.Node,
					Detail: fmt.Sprintf("%s left, over %d times the median %s of the %d keys read with it: a lease set far too long blocks everyone when its holder dies", lockops.FormatAge(p.TTL), o.OutlierFactor, lockops.FormatAge(median), len(ttls))})
			}
		}
	}
}
