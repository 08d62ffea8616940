package redisview

// The requests a SET NX lock is made of, each on one server (by its index
// in the order given): take, extend and release with the token, and a read
// of one key. Deciding what they mean (quorum, validity, loss) is lockops'.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// The Lua scripts of a token lock: extend and delete only while the key
// still holds our token (the Redlock algorithm's and redis-py's own).
var (
	expireIfHolds = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`)
	deleteIfHolds = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`)
)

// Len is how many servers the client talks to (the masters of a Redlock).
func (c *Client) Len() int { return len(c.clients) }

// SetIfAbsent sets key to token with expiry ttl on server i when the key
// does not exist (SET key token NX PX ttl); true when it was set.
func (c *Client) SetIfAbsent(ctx context.Context, i int, key, token string, ttl time.Duration) (bool, error) {
	ok, err := c.clients[i].SetNX(ctx, key, token, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("SET %s NX PX on %s: %w", key, c.eps[i].Addr, err)
	}
	return ok, nil
}

// ExpireIfHolds sets key's expiry to ttl on server i when it still holds
// token (a Lua compare-and-PEXPIRE); false when it does not (gone, or
// another token).
func (c *Client) ExpireIfHolds(ctx context.Context, i int, key, token string, ttl time.Duration) (bool, error) {
	n, err := expireIfHolds.Run(ctx, c.clients[i], []string{key}, token, ttl.Milliseconds()).Int64()
	if err != nil {
		return false, fmt.Errorf("extend %s on %s: %w", key, c.eps[i].Addr, err)
	}
	return n == 1, nil
}

// DeleteIfHolds deletes key on server i when it still holds token (a Lua
// compare-and-delete); false when it does not.
func (c *Client) DeleteIfHolds(ctx context.Context, i int, key, token string) (bool, error) {
	n, err := deleteIfHolds.Run(ctx, c.clients[i], []string{key}, token).Int64()
	if err != nil {
		return false, fmt.Errorf("delete %s on %s: %w", key, c.eps[i].Addr, err)
	}
	return n == 1, nil
}

// ReadKey reads one key on server i in one round trip: its type, remaining
// time and, for a string, its value. A missing key has Type "none".
func (c *Client) ReadKey(ctx context.Context, i int, key string) (Key, error) {
	var typ *redis.StatusCmd
	var ttl *redis.Cmd
	var get *redis.StringCmd
	_, err := c.clients[i].Pipelined(ctx, func(p redis.Pipeliner) error {
		typ = p.Type(ctx, key)
		ttl = p.Do(ctx, "PTTL", key)
		get = p.Get(ctx, key)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) && typ.Err() != nil {
		return Key{}, fmt.Errorf("read %s on %s: %w", key, c.eps[i].Addr, err)
	}
	k := Key{Name: key, Type: typ.Val(), TTL: NoExpiry}
	if ms, _ := ttl.Int64(); ms >= 0 {
		k.TTL = time.Duration(ms) * time.Millisecond
	}
	if k.Type == "string" {
		k.Value, _ = get.Bytes()
	}
	return k, nil
}
