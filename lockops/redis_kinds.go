package lockops

import (
	"slices"
	"time"
)

// The Redis recipes. Their string values are part of the JSON contract.
const (
	KindRedisSetNX       Kind = "redis.setnx"
	KindRedlock          Kind = "redlock"
	KindRedissonLock     Kind = "redisson.lock"
	KindRedissonFairLock Kind = "redisson.fairlock"
)

// RedisKinds are the Redis recipes, for the writers and the contract.
var RedisKinds = []Kind{KindRedisSetNX, KindRedlock, KindRedissonLock, KindRedissonFairLock}

// IsRedis reports whether k is a Redis recipe: its participants' nodes are
// keys (key@host:port on a Redlock master), not znode paths.
func (k Kind) IsRedis() bool { return slices.Contains(RedisKinds, k) }

// NoExpiry is a Redis participant's TTL when its key never expires: the
// TTL the reads give such a key (PTTL -1).
const NoExpiry time.Duration = -1
