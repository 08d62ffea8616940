package ui

// The Redis mode's reads: each command captures what it needs, reads
// through redisview (the locks among keys through ui/redistree) and
// returns a message.

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/redistree"
	"github.com/zkscope/zkscope/ui/tree"
)

// redisMsg marks the Redis mode's messages (Update routes them to
// onRedis).
type redisMsg interface{ redisMsg() }

// redisSelectMsg answers the read of the key under the cursor: its value
// and, when it is a lock, its decoded queue.
type redisSelectMsg struct {
	id    uint64
	path  string
	value redisview.Value
	queue *lockops.Queue
	err   error
}

// redisProbeMsg answers the read of the keys on screen: which are locks.
type redisProbeMsg struct {
	found map[string]tree.LockTag
	none  []string
}

// redisPingMsg answers a PING of every server (one in flight at a time:
// Init's, then one every few ticks, so it carries no request id): how
// many did not answer, of how many, and the first one's error.
type redisPingMsg struct {
	down, of int
	err      error
}

func (redisSelectMsg) redisMsg() {}
func (redisProbeMsg) redisMsg()  {}
func (redisPingMsg) redisMsg()   {}

// redisSelectCmd reads the key at path p (group: p is no key) for the
// detail pane, and its lock queue when it is a lock.
func redisSelectCmd(c *redisview.Client, id uint64, p string, group bool) tea.Cmd {
	key := common.RedisKeyOf(p)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		msg := redisSelectMsg{id: id, path: p}
		if group {
			return msg
		}
		v, err := c.ReadValue(ctx, key)
		msg.value, msg.err = v, redistree.Error(err)
		if err != nil || v.Type == "none" && len(c.Servers()) == 1 {
			return msg
		}
		qs, err := redistree.Queues(ctx, c, []string{key})
		if q, ok := qs[key]; ok && err == nil {
			q.Path = p
			msg.queue = &q
		}
		return msg
	}
}

// redisProbeCmd reads the keys on screen and tags the locks among them.
func redisProbeCmd(c *redisview.Client, paths []string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		keys := make([]string, len(paths))
		for i, p := range paths {
			keys[i] = common.RedisKeyOf(p)
		}
		msg := redisProbeMsg{found: map[string]tree.LockTag{}}
		qs, err := redistree.Queues(ctx, c, keys)
		if err != nil {
			return msg
		}
		for i, p := range paths {
			if q, ok := qs[keys[i]]; ok {
				msg.found[p] = tree.LockTag{Kind: q.Kind, Length: len(q.Participants)}
			} else {
				msg.none = append(msg.none, p)
			}
		}
		return msg
	}
}

// redisPingCmd asks every server whether it answers.
func redisPingCmd(c *redisview.Client) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		msg := redisPingMsg{}
		for _, err := range c.Ping(ctx) {
			msg.of++
			if err != nil {
				msg.down++
				if msg.err == nil {
					msg.err = redistree.Error(err)
				}
			}
		}
		return msg
	}
}
