package redisview

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// NoExpiry is a key's TTL when it never expires (PTTL -1).
const NoExpiry time.Duration = -1

// Key is one key as read: what a lock decoder needs, no client types.
type Key struct {
	Name   string
	Type   string        // "string", "hash", … ; "none" for a fair lock's missing hash
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
const batch = 1000

func readLocks(ctx context.Context, r *redis.Client, pattern string) ([]Key, error) {
	names, err := scan(ctx, r, pattern)
	if err != nil {
		return nil, err
	}
	keys := make([]Key, 0, len(names))
	for start := 0; start < len(names); start += batch {
		part, err := readBatch(ctx, r, names[start:min(start+batch, len(names))])
		if err != nil {
			return nil, err
		}
		keys = append(keys, part...)
	}
	return keys, nil
}

// scan lists the names matching pattern, a companion key standing for its
// lock's name, sorted and once each (SCAN may return a key twice).
func scan(ctx context.Context, r *redis.Client, pattern string) ([]string, error) {
	seen := map[string]bool{}
	var cursor uint64
	for {
		ks, next, err := r.Scan(ctx, cursor, pattern, batch).Result()
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			if l := fairLockOf(k); l != "" {
				k = l
			}
			seen[k] = true
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	slices.Sort(names)
	return names, nil
}

// readBatch reads names in two pipelined round trips: TYPE and PTTL, then
// the values (GET, HGETALL) and every hash's fair-lock companions.
func readBatch(ctx context.Context, r *redis.Client, names []string) ([]Key, error) {
	types := make([]*redis.StatusCmd, len(names))
	ttls := make([]*redis.Cmd, len(names))
	if _, err := r.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range names {
			types[i] = p.Type(ctx, k)
			ttls[i] = p.Do(ctx, "PTTL", k)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	keys := make([]Key, len(names))
	gets := make([]*redis.StringCmd, len(names))
	hashes := make([]*redis.MapStringStringCmd, len(names))
	queues := make([]*redis.StringSliceCmd, len(names))
	deadlines := make([]*redis.ZSliceCmd, len(names))
	_, err := r.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range names {
			ms, _ := ttls[i].Int64()
			keys[i] = Key{Name: k, Type: types[i].Val(), TTL: NoExpiry}
			if ms >= 0 {
				keys[i].TTL = time.Duration(ms) * time.Millisecond
			}
			switch keys[i].Type {
			case "string":
				gets[i] = p.Get(ctx, k)
			case "hash":
				hashes[i] = p.HGetAll(ctx, k)
				fallthrough
			case "none":
				queues[i] = p.LRange(ctx, FairLockKey(QueuePrefix, k), 0, -1)
				deadlines[i] = p.ZRangeWithScores(ctx, FairLockKey(TimeoutPrefix, k), 0, -1)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	out := keys[:0]
	for i := range keys {
		k := &keys[i]
		if gets[i] != nil {
			if v, err := gets[i].Bytes(); err == nil {
				k.Value = v
			} else {
				continue // gone between the two round trips
			}
		}
		if hashes[i] != nil {
			k.Fields = hashes[i].Val()
		}
		if queues[i] != nil {
			if q := queues[i].Val(); len(q) > 0 {
				k.Queue = q
			}
			if zs := deadlines[i].Val(); len(zs) > 0 {
				k.Deadlines = make(map[string]int64, len(zs))
				for _, z := range zs {
					m, _ := z.Member.(string)
					k.Deadlines[m] = int64(z.Score)
				}
			}
		}
		if k.Type == "none" && k.Queue == nil && k.Deadlines == nil {
			continue // expired or deleted meanwhile
		}
		out = append(out, *k)
	}
	return out, nil
}
