package lockops

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// explainLostPlace rewrites the error of a take whose wait was cut short
// by the end of its session (or the loss of its node): the place in the
// queue does not come back on its own, so the error wraps [ErrLost] and
// says how to rejoin. A wait can also fail on the connection error of a
// request made while the session ended (the watch fires before the session
// event); then the connection is given a session timeout to show whether
// our session survived.
func explainLostPlace(c *zkview.Client, lockPath string, err error) error {
	const rejoin = "our place in the queue of %s is lost: take the lock again to rejoin (at the end of the queue)"
	if errors.Is(err, ErrLost) {
		return fmt.Errorf("%w; "+rejoin, err, lockPath)
	}
	var te *takeError
	if !errors.As(err, &te) || te.session == 0 ||
		!(errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrSessionExpired)) {
		return err
	}
	if !sessionGone(c, te.session, c.NegotiatedTimeout()) {
		return err
	}
	return fmt.Errorf("%w (session %s ended while waiting: %w); "+rejoin, err, FormatSession(te.session), ErrLost, lockPath)
}

// sessionGone waits at most limit for the connection to show whether
// session is over (true) or connected again (false).
func sessionGone(c *zkview.Client, session int64, limit time.Duration) bool {
	sub, unsub := c.Subscribe()
	defer unsub()
	timeout := time.After(limit)
	for {
		select {
		case ev := <-sub:
			if sessionEnded(ev, session) {
				return true
			}
			if ev.State == zkview.StateConnected {
				return false
			}
		case <-timeout:
			return false
		}
	}
}
