package ui

// The Redis mode's reads: each command captures what it needs, reads
// through redisview, decodes locks with lockops and returns a message.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
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

// redisErr is a Redis failure as one plain sentence with what to do next;
// errors.Is still finds the cause.
type redisErr struct {
	text string
	err  error
}

func (e *redisErr) Error() string { return e.text }
func (e *redisErr) Unwrap() error { return e.err }

// redisError words err for the status line (nil stays nil; an error
// already worded stays as it is).
func redisError(err error) error {
	var re *redisErr
	if err == nil || errors.As(err, &re) {
		return err
	}
	s := err.Error()
	var ne net.Error
	var oe *net.OpError
	switch {
	case strings.Contains(s, "NOAUTH"):
		return &redisErr{"The Redis server wants a password (NOAUTH): put user:password in --auth-file, ZKSCOPE_AUTH or the context.", err}
	case strings.Contains(s, "WRONGPASS"), strings.Contains(s, "invalid password"), strings.Contains(s, "invalid username-password"):
		return &redisErr{"The Redis server refused the credentials (WRONGPASS): check --auth-file, ZKSCOPE_AUTH or the context.", err}
	case strings.Contains(s, "WRONGTYPE"):
		return &redisErr{"The key changed type while it was read (WRONGTYPE): press r to read it again.", err}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &redisErr{"Redis did not answer in time: press r to try again, or check the server's load.", err}
	case errors.As(err, &oe):
		return &redisErr{fmt.Sprintf("Redis at %s does not answer (%v): check --server and that redis-server runs there.", redisAddrOf(oe), oe.Err), err}
	}
	return err
}

func redisAddrOf(oe *net.OpError) string {
	if oe.Addr != nil {
		return oe.Addr.String()
	}
	return "the server"
}

// redisQueues reads keys from every server and decodes those that are
// locks ([redislock.Locks], as `zkscope locks` does), keyed by key name,
// as of the read and diagnosed.
func redisQueues(ctx context.Context, c *redisview.Client, keys []string) (map[string]lockops.Queue, error) {
	reads := c.ReadKeys(ctx, keys)
	if err := redisview.AllFailed(reads); err != nil {
		return nil, redisError(err)
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
		msg.value, msg.err = v, redisError(err)
		if err != nil || v.Type == "none" && len(c.Servers()) == 1 {
			return msg
		}
		qs, err := redisQueues(ctx, c, []string{key})
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
		qs, err := redisQueues(ctx, c, keys)
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
					msg.err = redisError(err)
				}
			}
		}
		return msg
	}
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
