package zkview

import (
	"errors"
	"math/rand/v2"
	"sync"
	"time"
)

// Reconnecting at once. go-zookeeper pauses a whole second after every
// pass over the members that reached none (when the host provider reports
// retryStart), and only then fails the requests queued meanwhile
// (zk.ErrNoServer). A member back from a restart was reached up to a
// second late, and a second more when the first attempt came while it was
// still starting: a lock command on a 10 s session was stopped for a
// 3.5 s restart that its session survived. hostList paces the passes
// itself instead: a short pause, doubled after each failed pass up to
// retryPauseMax, taken in the dialer (outside go-zookeeper's server lock);
// go-zookeeper's own second is left to it only once every failQueuedEvery
// of an outage, so that requests queued while no member answers still
// fail instead of waiting for the outage's end.
const (
	retryPauseMin   = 50 * time.Millisecond
	retryPauseMax   = 250 * time.Millisecond
	failQueuedEvery = 10 * time.Second
)

// hostList hands go-zookeeper the members as given (host names kept, so the
// TLS dialer can check a certificate against the host name, and DNS is asked
// at every dial), in a random order like go-zookeeper's own provider, and
// paces the passes over them (see retryPauseMax).
type hostList struct {
	servers    []string
	curr, last int

	mu           sync.Mutex
	now          func() time.Time // time.Now; tests set a clock
	failingSince time.Time        // the first failed pass of this outage (zero: connected)
	lastFlush    time.Time        // go-zookeeper last failed the queued requests
	pause        time.Duration    // the current pause between passes
	pauseDue     bool             // the next dial waits pause first
}

func (h *hostList) Init(servers []string) error {
	if len(servers) == 0 {
		return errors.New("no servers")
	}
	h.servers = append([]string(nil), servers...)
	rand.Shuffle(len(h.servers), func(i, j int) { h.servers[i], h.servers[j] = h.servers[j], h.servers[i] })
	h.curr, h.last = -1, -1
	return nil
}

func (h *hostList) Len() int { return len(h.servers) }

// Next is the member to try next; retryStart (go-zookeeper pauses a second
// and fails the queued requests) only once every failQueuedEvery of an
// outage. After any other failed pass the next dial waits a short pause.
func (h *hostList) Next() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.curr = (h.curr + 1) % len(h.servers)
	passDone := h.curr == h.last
	if h.last == -1 {
		h.last = 0
	}
	if !passDone {
		return h.servers[h.curr], false
	}
	now := time.Now()
	if h.now != nil {
		now = h.now()
	}
	if h.failingSince.IsZero() {
		h.failingSince, h.lastFlush = now, now
	}
	if now.Sub(h.lastFlush) >= failQueuedEvery {
		h.lastFlush, h.pauseDue = now, false
		return h.servers[h.curr], true
	}
	h.pause = min(max(2*h.pause, retryPauseMin), retryPauseMax)
	h.pauseDue = true
	return h.servers[h.curr], false
}

// Connected ends an outage: the next one starts with no pause.
func (h *hostList) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.curr
	h.failingSince, h.pause, h.pauseDue = time.Time{}, 0, false
}

// pauseBeforeDial is how long the dial about to start waits: the pause
// after a failed pass, once.
func (h *hostList) pauseBeforeDial() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.pauseDue {
		return 0
	}
	h.pauseDue = false
	return h.pause
}
