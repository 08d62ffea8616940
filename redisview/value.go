package redisview

// One key's value for a person to look at: its type, remaining time and
// the first part of its value, bounded whatever the key's size.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Value bounds: the bytes of a string and the elements of a hash, list,
// set, sorted set or stream read for display.
const (
	MaxValueBytes    = 64 << 10
	MaxValueElements = 200
)

// Value is one key as read for display.
type Value struct {
	Name   string
	Server string // host:port it was read from
	Type   string // "string", "hash", "list", "set", "zset", "stream"; "none": no such key
	TTL    time.Duration
	At     time.Time // when it was read (TTL counts down from here)
	// Size is the whole value's length: bytes of a string, elements of
	// the others.
	Size  int64
	Bytes []byte // a string's first MaxValueBytes
	// Elements are the first MaxValueElements: a hash's fields and
	// values, a stream's entry ids and fields, a sorted set's members and
	// scores (as text); a list's or set's members with Second empty.
	Elements []Element
}

// Element is one entry of a hash, list, set, sorted set or stream.
type Element struct{ First, Second string }

// Truncated reports whether only part of the value was read.
func (v Value) Truncated() bool {
	if v.Type == "string" {
		return int64(len(v.Bytes)) < v.Size
	}
	return int64(len(v.Elements)) < v.Size
}

// ReadValue reads key from the first server that has it (the only one,
// unless several masters are configured): type and remaining time, then
// the bounded value, in two pipelined round trips.
func (c *Client) ReadValue(ctx context.Context, key string) (Value, error) {
	var v Value
	for i, r := range c.clients {
		var err error
		v, err = readValue(ctx, r, key)
		v.Name, v.Server = key, c.eps[i].Addr
		if err != nil {
			return v, fmt.Errorf("read %s from %s: %w", key, c.eps[i].Addr, err)
		}
		if v.Type != "none" {
			return v, nil
		}
	}
	return v, nil
}

func readValue(ctx context.Context, r *redis.Client, key string) (Value, error) {
	v := Value{TTL: NoExpiry}
	var typ *redis.StatusCmd
	var ttl *redis.Cmd
	if _, err := r.Pipelined(ctx, func(p redis.Pipeliner) error {
		typ, ttl = p.Type(ctx, key), p.Do(ctx, "PTTL", key)
		return nil
	}); err != nil {
		return v, err
	}
	v.At, v.Type = time.Now(), typ.Val()
	if ms, _ := ttl.Int64(); ms >= 0 {
		v.TTL = time.Duration(ms) * time.Millisecond
	}
	if v.Type == "none" {
		return v, nil
	}
	var size *redis.IntCmd
	var body redis.Cmder
	n := int64(MaxValueElements)
	_, err := r.Pipelined(ctx, func(p redis.Pipeliner) error {
		switch v.Type {
		case "string":
			size, body = p.StrLen(ctx, key), p.GetRange(ctx, key, 0, MaxValueBytes-1)
		case "hash":
			size, body = p.HLen(ctx, key), p.HScan(ctx, key, 0, "*", n)
		case "list":
			size, body = p.LLen(ctx, key), p.LRange(ctx, key, 0, n-1)
		case "set":
			size, body = p.SCard(ctx, key), p.SScan(ctx, key, 0, "*", n)
		case "zset":
			size, body = p.ZCard(ctx, key), p.ZRangeWithScores(ctx, key, 0, n-1)
		case "stream":
			size, body = p.XLen(ctx, key), p.XRangeN(ctx, key, "-", "+", n)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return v, err
	}
	if size != nil {
		v.Size = size.Val()
	}
	fillValue(&v, body, int(n))
	return v, nil
}

// fillValue copies a value command's reply into v (at most n elements).
func fillValue(v *Value, body redis.Cmder, n int) {
	add := func(a, b string) {
		if len(v.Elements) < n {
			v.Elements = append(v.Elements, Element{a, b})
		}
	}
	switch c := body.(type) {
	case *redis.StringCmd:
		v.Bytes, _ = c.Bytes()
	case *redis.ScanCmd:
		keys, _ := c.Val()
		for i := 0; i < len(keys); i++ {
			if v.Type == "hash" && i+1 < len(keys) {
				add(keys[i], keys[i+1])
				i++
			} else {
				add(keys[i], "")
			}
		}
	case *redis.StringSliceCmd:
		for _, s := range c.Val() {
			add(s, "")
		}
	case *redis.ZSliceCmd:
		for _, z := range c.Val() {
			m, _ := z.Member.(string)
			add(m, strconv.FormatFloat(z.Score, 'f', -1, 64))
		}
	case *redis.XMessageSliceCmd:
		for _, x := range c.Val() {
			add(x.ID, fmt.Sprint(x.Values))
		}
	}
}

// ReadKeys reads the named keys from every server at once, as
// [Client.ReadLocks] reads the keys a pattern matches (type, remaining
// time, value, a Redisson lock's fair-lock queue and deadlines): the
// lock pane's read of one lock, and the tree's of the keys on screen.
func (c *Client) ReadKeys(ctx context.Context, names []string) []Read {
	out := make([]Read, len(c.clients))
	done := make(chan struct{}, len(c.clients))
	for i, r := range c.clients {
		go func() {
			defer func() { done <- struct{}{} }()
			keys, err := readBatch(ctx, r, names)
			out[i] = Read{Addr: c.eps[i].Addr, Keys: keys, At: time.Now()}
			if err != nil {
				out[i].Err = fmt.Errorf("read %d keys from %s: %w", len(names), c.eps[i].Addr, err)
			}
		}()
	}
	for range c.clients {
		<-done
	}
	return out
}

// Ping asks every server whether it answers: one error per server, in
// the order given, nil for those that answered.
func (c *Client) Ping(ctx context.Context) []error {
	errs := make([]error, len(c.clients))
	for i, r := range c.clients {
		if err := r.Ping(ctx).Err(); err != nil {
			errs[i] = fmt.Errorf("ping %s: %w", c.eps[i].Addr, err)
		}
	}
	return errs
}

// AllFailed is the servers' errors joined when every read failed, nil
// when at least one server answered (a Redlock with masters down is
// decoded from the others).
func AllFailed(reads []Read) error {
	var errs []error
	for _, r := range reads {
		if r.Err == nil {
			return nil
		}
		errs = append(errs, r.Err)
	}
	return errors.Join(errs...)
}
