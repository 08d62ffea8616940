package redistree

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
)

// The locks among keys, read and decoded as `zkscope locks` does.

// Queues reads keys from every server and decodes those that are
// locks ([redislock.Locks], as `zkscope locks` does), keyed by key name,
// as of the read and diagnosed.
func Queues(ctx context.Context, c *redisview.Client, keys []string) (map[string]lockops.Queue, error) {
	reads := c.ReadKeys(ctx, keys)
	if err := redisview.AllFailed(reads); err != nil {
		return nil, Error(err)
	}
	out := map[string]lockops.Queue{}
	for _, q := range redislock.Locks(reads, time.Now()) {
		name, _, _ := strings.Cut(q.Path, "@") // a master's own lock: key@host:port
		if _, seen := out[name]; !seen {
			q.Participants = distinctNodes(q.Participants)
			out[name] = q
		}
	}
	return out, nil
}

// distinctNodes gives each participant a node of its own, key#token
// (Name keeps the key): a fair lock's waiters share one list key, and a
// lock taken over by another token is another holder (the pane shows the
// old one leaving and the new one arriving).
func distinctNodes(ps []lockops.Participant) []lockops.Participant {
	seen := map[string]bool{}
	for i := range ps {
		n := ps[i].Node + "#" + string(ps[i].Data)
		if seen[n] {
			n += "#" + strconv.Itoa(i)
		}
		seen[n] = true
		ps[i].Node = n
	}
	return ps
}

// ReadLock reads the lock at the tree path p for the lock pane (its
// loader): a lock nobody holds any more is an empty queue.
func ReadLock(ctx context.Context, c *redisview.Client, p string) (lockops.Queue, error) {
	key := common.RedisKeyOf(p)
	qs, err := Queues(ctx, c, []string{key})
	if err != nil {
		return lockops.Queue{Path: p}, err
	}
	q := qs[key] // none: nobody holds it any more
	q.Path = p
	return q, nil
}
