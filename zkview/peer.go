package zkview

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/zkscope/zkscope/peer"
)

// What answers at a member's address: every connection zkview opens (the
// session's, the multi-read sidecar's, a four-letter word's) is wrapped by
// [peer.WatchZooKeeper], which fails it at once with a [*peer.Mismatch]
// when a Redis or HTTP port answers; the members that did are remembered
// here, so that go-zookeeper's round of its members skips them and the
// first connect can say at once that nothing answers like ZooKeeper.

// mismatchMemory is how long a member that answered like something else is
// not dialled again: go-zookeeper goes round its members, and a Redis port
// in the list fails each round at once instead of after a probe.
const mismatchMemory = time.Minute

// mismatchSeen is a member that answered like something else, and when.
type mismatchSeen struct {
	err error
	at  time.Time
}

// noteMismatch records that addr answered like something else (err, a
// [*peer.Mismatch]): its dial outcome for [Client.nothingAnswers], and not
// dialled again for mismatchMemory.
func (c *Client) noteMismatch(addr string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mismatches == nil {
		c.mismatches = map[string]mismatchSeen{}
	}
	c.mismatches[addr] = mismatchSeen{err: err, at: time.Now()}
	if c.dialErrs == nil {
		c.dialErrs = map[string]error{}
	}
	c.dialErrs[addr] = err
}

// knownMismatch is the mismatch addr answered with lately, or nil.
func (c *Client) knownMismatch(addr string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.mismatches[addr]; ok && time.Since(m.at) < mismatchMemory {
		return m.err
	}
	return nil
}

// nothingAnswers says why, when no member can give a session for a reason
// waiting will not fix soon: each refused the connection, or answered like
// something other than ZooKeeper. It is nil while any member might still
// answer (not tried yet, silent, or ZooKeeper).
func (c *Client) nothingAnswers() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var why, hints []string
	hint := func(h string) {
		for _, x := range hints {
			if x == h {
				return
			}
		}
		hints = append(hints, h)
	}
	for _, s := range c.cfg.Servers {
		err, tried := c.dialErrs[s]
		var m *peer.Mismatch
		switch {
		case !tried || err == nil:
			return nil
		case errors.As(err, &m):
			why = append(why, m.Error())
			if m.Got == peer.Redis {
				hint("for Redis locks give -s redis://" + s)
			} else {
				hint("an HTTP port, such as the AdminServer's, is no client port: give the servers' client port (2181 by default)")
			}
		case errors.Is(err, syscall.ECONNREFUSED):
			why = append(why, s+": connection refused")
			hint(c.hint(""))
		default:
			return nil
		}
	}
	msg := strings.Join(why, "; ")
	if len(c.cfg.Servers) > 1 {
		msg = "connect to " + strings.Join(c.cfg.Servers, ",") + ": " + msg
	}
	return fmt.Errorf("%s (%s)", msg, strings.Join(hints, "; "))
}
