package redisview

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// NoExpiry is a key's TTL when it never expires (PTTL -1).
const NoExpiry time.Duration = -1

// Key is one key as read: what a lock decoder needs, no client types.
type Key struct {
	Name   string
	Type   string        // "string", "hash", "other" (no lock: not read further); "none" for a fair lock's missing hash
	TTL    time.Duration // remaining time to live; NoExpiry when none
	Value  []byte        // a string key's value
	Fields map[string]string
	// Queue and Deadlines are a Redisson fair lock's waiters
	// (redisson_lock_queue:{Name}, in order) and their deadlines in ms
	// since the epoch (redisson_lock_timeout:{Name}); nil when absent.
	Queue     []string
	Deadlines map[string]int64
}

// Read is one server's keys.
type Read struct {
	Addr string
	Keys []Key // sorted by name
	At   time.Time
	Err  error
}

// Redisson's fair lock companions: prefix ":" name, the name in braces
// unless it already holds one (Redisson's prefixName).
const (
	QueuePrefix   = "redisson_lock_queue"
	TimeoutPrefix = "redisson_lock_timeout"
)

// FairLockKey is the name of a Redisson fair lock companion of lock name.
func FairLockKey(prefix, name string) string {
	if strings.Contains(name, "{") {
		return prefix + ":" + name
	}
	return prefix + ":{" + name + "}"
}

// fairLockOf is the lock name a companion key belongs to ("" when key is
// none).
func fairLockOf(key string) string {
	for _, p := range []string{QueuePrefix, TimeoutPrefix} {
		if rest, ok := strings.CutPrefix(key, p+":"); ok {
			if inner, ok := strings.CutPrefix(rest, "{"); ok && strings.HasSuffix(inner, "}") && !strings.ContainsAny(inner[:len(inner)-1], "{}") {
				return inner[:len(inner)-1]
			}
			return rest
		}
	}
	return ""
}

// batch is how many keys share one pipelined round trip.
const batch = 5000

// scanCount is SCAN's COUNT: how many of the server's slots one SCAN call
// looks at. Moderate, as the tree's listing: each call holds the server
// for about a millisecond per 1,000 slots (10,000 held it 15–20 ms on a
// busy machine, a stall every other client sees), and the whole scan costs
// the server the same either way; the round trips it adds overlap the
// reads of the pages already scanned.
const scanCount = 1000

// readers is how many pages are read at once, each on a connection of its
// own besides the scan's: while the server answers one page's pipeline,
// the next page's is on its way (the client's PoolSize covers them).
const readers = 2

// readLocks scans pattern and reads each page of names while the next
// pages are scanned, readers pages at a time, so that the reads' round
// trips overlap the scan's; the keys come sorted by name.
func readLocks(ctx context.Context, r *redis.Client, pattern string) ([]Key, error) {
	pages := make(chan []string, 8)
	scanErr := make(chan error, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(pages)
		scanErr <- scan(ctx, r, pattern, func(names []string) {
			select {
			case pages <- names:
			case <-ctx.Done():
			}
		})
	}()
	parts := make([][]Key, readers)
	errs := make([]error, readers)
	var wg sync.WaitGroup
	for w := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w], errs[w] = readPages(ctx, r, pages)
			if errs[w] != nil {
				cancel() // the scan and the other readers stop too
			}
		}()
	}
	wg.Wait()
	if err := firstCause(append(errs, <-scanErr)); err != nil {
		return nil, err
	}
	return mergeKeys(parts), nil
}

// firstCause is the first of errs that is not the cancellation a failing
// reader caused, else the first error, else nil.
func firstCause(errs []error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// readPages reads the pages it takes from pages until it is closed.
func readPages(ctx context.Context, r *redis.Client, pages <-chan []string) ([]Key, error) {
	var keys []Key
	for names := range pages {
		for start := 0; start < len(names); start += batch {
			part, err := readBatch(ctx, r, names[start:min(start+batch, len(names))])
			if err != nil {
				return nil, err
			}
			keys = append(keys, part...)
		}
	}
	return keys, nil
}

// mergeKeys is the readers' keys in one slice, sorted by name.
func mergeKeys(parts [][]Key) []Key {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	keys := make([]Key, 0, n)
	for _, p := range parts {
		keys = append(keys, p...)
	}
	slices.SortFunc(keys, func(a, b Key) int { return strings.Compare(a.Name, b.Name) })
	return keys
}

// scan hands page the names matching pattern, a page per SCAN call, a
// companion key standing for its lock's name, each name once (SCAN may
// return a key twice).
func scan(ctx context.Context, r *redis.Client, pattern string, page func([]string)) error {
	seen := map[string]bool{}
	var cursor uint64
	for {
		ks, next, err := r.Scan(ctx, cursor, pattern, scanCount).Result()
		if err != nil {
			return err
		}
		var names []string
		for _, k := range ks {
			if l := fairLockOf(k); l != "" {
				k = l
			}
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
		if len(names) > 0 {
			page(names)
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// readBatch reads names with as few commands as a keyspace of mostly
// strings allows, pipelined: PTTL and GET for every key (a string lock
// needs no more); HGETALL for the keys GET found of another type;
// the Redisson fair-lock companions for hashes laid out as a Redisson
// lock and for missing keys (a fair lock whose hash is gone but whose
// queue is not).
func readBatch(ctx context.Context, r *redis.Client, names []string) ([]Key, error) {
	ttls := make([]*redis.Cmd, len(names))
	gets := make([]*redis.StringCmd, len(names))
	r.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range names {
			ttls[i] = p.Do(ctx, "PTTL", k)
			gets[i] = p.Get(ctx, k)
		}
		return nil
	})
	keys := make([]Key, len(names))
	var other, fair []int // keys of another type; candidates for a fair lock
	for i, k := range names {
		if err := ttls[i].Err(); err != nil { // PTTL fails only with the connection
			return nil, err
		}
		keys[i] = Key{Name: k, Type: "string", TTL: NoExpiry}
		if ms, _ := ttls[i].Int64(); ms >= 0 {
			keys[i].TTL = time.Duration(ms) * time.Millisecond
		}
		switch v, err := gets[i].Bytes(); {
		case err == nil:
			keys[i].Value = v
		case errors.Is(err, redis.Nil):
			keys[i].Type = "none"
			fair = append(fair, i)
		default: // WRONGTYPE
			other = append(other, i)
		}
	}
	if err := readOthers(ctx, r, keys, other); err != nil {
		return nil, err
	}
	for _, i := range other {
		if keys[i].Type == "hash" && redissonLayout(keys[i].Fields) {
			fair = append(fair, i)
		}
	}
	if err := readFairLocks(ctx, r, keys, fair); err != nil {
		return nil, err
	}
	out := keys[:0]
	for i := range keys {
		if k := &keys[i]; k.Type != "none" || k.Queue != nil || k.Deadlines != nil {
			out = append(out, *k) // (a missing key without a queue expired meanwhile)
		}
	}
	return out, nil
}

// readOthers reads, in one round trip, the fields of keys[i] for each i in
// which (keys of another type than string): a hash's fields, else Type
// "other" (a list, set, … is no lock; its exact type is not asked for).
func readOthers(ctx context.Context, r *redis.Client, keys []Key, which []int) error {
	if len(which) == 0 {
		return nil
	}
	hashes := make([]*redis.MapStringStringCmd, len(which))
	r.Pipelined(ctx, func(p redis.Pipeliner) error {
		for j, i := range which {
			hashes[j] = p.HGetAll(ctx, keys[i].Name) // WRONGTYPE unless a hash
		}
		return nil
	})
	for j, i := range which {
		fields, err := hashes[j].Result()
		switch {
		case err == nil && len(fields) == 0:
			keys[i].Type = "none" // deleted meanwhile
		case err == nil:
			keys[i].Type, keys[i].Fields = "hash", fields
		case strings.HasPrefix(err.Error(), "WRONGTYPE"):
			keys[i].Type = "other"
		default:
			return err
		}
	}
	return nil
}

// redissonLayout reports whether a hash is laid out as a Redisson lock:
// fields <uuid>:<threadId> holding a re-entry count.
func redissonLayout(fields map[string]string) bool {
	for f, n := range fields {
		i := strings.LastIndexByte(f, ':')
		if i <= 0 || !allDigits(f[i+1:]) || !allDigits(n) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// readFairLocks reads, in one round trip, the Redisson fair-lock queue
// and deadlines of keys[i] for each i in which.
func readFairLocks(ctx context.Context, r *redis.Client, keys []Key, which []int) error {
	if len(which) == 0 {
		return nil
	}
	queues := make([]*redis.StringSliceCmd, len(which))
	deadlines := make([]*redis.ZSliceCmd, len(which))
	_, err := r.Pipelined(ctx, func(p redis.Pipeliner) error {
		for j, i := range which {
			queues[j] = p.LRange(ctx, FairLockKey(QueuePrefix, keys[i].Name), 0, -1)
			deadlines[j] = p.ZRangeWithScores(ctx, FairLockKey(TimeoutPrefix, keys[i].Name), 0, -1)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for j, i := range which {
		k := &keys[i]
		if q := queues[j].Val(); len(q) > 0 {
			k.Queue = q
		}
		if zs := deadlines[j].Val(); len(zs) > 0 {
			k.Deadlines = make(map[string]int64, len(zs))
			for _, z := range zs {
				m, _ := z.Member.(string)
				k.Deadlines[m] = int64(z.Score)
			}
		}
	}
	return nil
}
