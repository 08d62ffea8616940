package redislock

// Force-deleting a Redis lock key (`zkscope evict KEY` on Redis servers):
// show who holds it, then delete it only where it still holds the token
// shown (a Lua compare-and-delete), so that a new holder's key is never
// deleted by mistake.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/zkview"
)

// EvictPreview is a Redis lock key as read before a force-delete.
type EvictPreview struct {
	Key    string
	Recipe lockops.Kind // KindRedisSetNX or KindRedlock
	// Token is the token to delete: the one a majority holds on a Redlock,
	// else the one on most servers (the first server's on a tie).
	Token   string
	TTL     time.Duration // the least remaining time among Token's keys; NoExpiry when none
	Holding []string      // servers whose key holds Token
	// Others says, per other server, what it has instead ("no key",
	// another token, unreadable).
	Others []string
	// Majority: Token is held on a majority (always so on one server).
	Majority bool
	// Lock: the key is a lock by [IsLock], as `zkscope locks` and the
	// terminal UI decide; the CLI refuses any other key without --any-key.
	Lock bool
}

// EvictOptions configure [Evict].
type EvictOptions struct {
	ReadOnly bool   // refuse (--read-only or the context's read_only)
	Context  string // for the audit log
}

// PreviewEvict reads key on every server. A key that exists nowhere
// is an error; one that is not a string (a token lock) is refused.
func PreviewEvict(ctx context.Context, c *redisview.Client, key string) (*EvictPreview, error) {
	p := &EvictPreview{Key: key, Recipe: Recipe(c), TTL: lockops.NoExpiry}
	servers := c.Servers()
	keys := make([]*redisview.Key, len(servers))
	unread := make([]bool, len(servers))
	count := map[string]int{}
	best, unreadable := "", 0
	read, errs := readKeyEverywhere(ctx, c, key)
	for i := range servers {
		k, err := read[i], errs[i]
		switch {
		case err != nil:
			unreadable++
			unread[i] = true
			p.Others = append(p.Others, fmt.Sprintf("%s: unreadable (%s)", servers[i], oneLine(err)))
			continue
		case k.Type == "none":
			continue
		case k.Type != "string":
			return nil, lockops.Refusef(lockops.OpForceDelete, key, "%s on %s is a %s, not a SET NX lock (a string holding a token): zkscope deletes only token locks; redis-cli DEL deletes anything", key, servers[i], k.Type)
		}
		keys[i] = &k
		if count[string(k.Value)]++; count[string(k.Value)] > count[best] {
			best = string(k.Value)
		}
	}
	if len(count) == 0 {
		if unreadable == len(servers) {
			return nil, fmt.Errorf("read %s: no server answered: %s", key, strings.Join(p.Others, "; "))
		}
		return nil, fmt.Errorf("%s does not exist: nothing to evict", key)
	}
	p.Token = best
	p.Majority = count[best] >= Quorum(len(servers))
	p.Lock = redisKeyIsLock(key, servers, read, errs)
	for i, k := range keys {
		switch {
		case k == nil && !unread[i]:
			p.Others = append(p.Others, servers[i]+": no key")
		case k == nil:
		case string(k.Value) == best:
			p.Holding = append(p.Holding, servers[i])
			if p.TTL == lockops.NoExpiry || (k.TTL != lockops.NoExpiry && k.TTL < p.TTL) {
				p.TTL = k.TTL
			}
		default:
			p.Others = append(p.Others, fmt.Sprintf("%s: another token, %s", servers[i], report.DescribeData(k.Value, 40)))
		}
	}
	return p, nil
}

// redisKeyIsLock is [IsLock] of key as read on each server (keys,
// errs): decoded by [Decode], as `zkscope locks` decodes it.
func redisKeyIsLock(key string, servers []string, keys []redisview.Key, errs []error) bool {
	reads := make([]redisview.Read, len(servers))
	for i := range servers {
		reads[i] = redisview.Read{Addr: servers[i], Err: errs[i]}
		if errs[i] == nil && keys[i].Type != "none" {
			reads[i].Keys = []redisview.Key{keys[i]}
		}
	}
	return slices.ContainsFunc(Decode(reads, time.Now()), func(q lockops.Queue) bool { return q.Path == key && IsLock(q) })
}

// NotLock is the refusal of a force-delete of a key that is no lock
// ([EvictPreview.Lock] false), audited; --any-key goes ahead.
func NotLock(c *redisview.Client, contextName string, p *EvictPreview) error {
	return Refuse(c, contextName, lockops.OpForceDelete, p.Key, p.Token, fmt.Sprintf(
		"%s is no lock to zkscope locks (its name says no lock, mutex, leader or semaphore, and it holds no expiring token of a lock library): pass --any-key to delete it anyway", p.Key))
}

// readKeyEverywhere reads key on every server at once, so that a master
// that does not answer costs one request timeout, not one per server.
func readKeyEverywhere(ctx context.Context, c *redisview.Client, key string) ([]redisview.Key, []error) {
	keys := make([]redisview.Key, c.Len())
	errs := make([]error, c.Len())
	var wg sync.WaitGroup
	for i := range c.Len() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys[i], errs[i] = c.ReadKey(ctx, i, key)
		}()
	}
	wg.Wait()
	return keys, errs
}

// ConfirmSuffix is what the operator types to confirm: the token's last 8
// characters (all of a shorter token).
func (p *EvictPreview) ConfirmSuffix() string {
	return p.Token[max(len(p.Token)-8, 0):]
}

// FormatEvictPreview is what `zkscope evict KEY` shows before asking.
func FormatEvictPreview(p *EvictPreview) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", printable.String(p.Key), p.Recipe)
	fmt.Fprintf(&b, "  token    %q\n", p.Token)
	if p.TTL == lockops.NoExpiry {
		b.WriteString("  expires  never (only its holder or an eviction frees it)\n")
	} else {
		fmt.Fprintf(&b, "  expires  in %s\n", lockops.FormatAge(p.TTL))
	}
	if len(p.Holding) > 1 || len(p.Others) > 0 {
		fmt.Fprintf(&b, "  on       %s\n", printable.String(strings.Join(p.Holding, ", ")))
		for _, o := range p.Others {
			fmt.Fprintf(&b, "  not on   %s\n", printable.String(o))
		}
		if !p.Majority {
			b.WriteString("  (held on a minority: no client holds this Redlock)\n")
		}
	}
	b.WriteString("The holder is NOT told: if it still runs it goes on as if it held the lock, until its next extension fails.\n")
	return b.String()
}

// Evict deletes key on every server where it still holds token (a Lua
// compare-and-delete) and returns how many keys it deleted. When none held
// it any more, nothing is deleted and the [*lockops.Refusal] names the token now
// there. Audited, refusals and --read-only included.
func Evict(ctx context.Context, c *redisview.Client, key, token string, o EvictOptions) (int, error) {
	audit := redisAudit{servers: c.Servers(), context: o.Context}
	if o.ReadOnly {
		err := fmt.Errorf("force-delete %s: %w", key, zkview.ErrReadOnly)
		audit.record(lockops.OpForceDelete, key, token, err)
		return 0, err
	}
	t := &redisTaker{c: c, key: key, token: token}
	deleted, answered, err := t.onEvery(func(i int) (bool, error) {
		return c.DeleteIfHolds(ctx, i, key, token)
	})
	switch {
	case deleted == 0 && answered > 0:
		now := "no key"
		if p, perr := PreviewEvict(ctx, c, key); perr == nil {
			now = fmt.Sprintf("token %q", p.Token)
		}
		err = lockops.Refusef(lockops.OpForceDelete, key, "nothing deleted: %s no longer holds the token %q (now: %s); look again with `zkscope locks %s`", key, token, now, key)
	case deleted == 0:
		err = fmt.Errorf("force-delete %s: %w", key, err)
	case err != nil:
		err = fmt.Errorf("force-delete %s: deleted on %d of %d servers: %w", key, deleted, c.Len(), err)
	}
	audit.record(lockops.OpForceDelete, key, token, err)
	return deleted, err
}

// Refuse records in the audit log that op on key was refused for
// reason and returns the [*lockops.Refusal] (exit 2): for refusals the CLI decides,
// such as a revoke (Redis locks have no revocation protocol) or an
// eviction nobody could confirm.
func Refuse(c *redisview.Client, contextName, op, key, token, reason string) error {
	err := &lockops.Refusal{Op: op, Path: key, Reason: reason}
	redisAudit{servers: c.Servers(), context: contextName}.record(op, key, token, err)
	return err
}
