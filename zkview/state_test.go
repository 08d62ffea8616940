package zkview

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// eventLog records a client's connection events for a test.
type eventLog struct {
	t  *testing.T
	ch <-chan ConnEvent
}

func watchEvents(t *testing.T, c *Client) *eventLog {
	ch, unsub := c.Subscribe()
	t.Cleanup(unsub)
	return &eventLog{t: t, ch: ch}
}

// until returns the first event for which ok holds, failing after timeout.
func (l *eventLog) until(what string, timeout time.Duration, ok func(ConnEvent) bool) ConnEvent {
	l.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev := <-l.ch:
			l.t.Logf("event: %s server=%s sid=%#x new=%v prev=%#x err=%v", ev.State, ev.Server, ev.SessionID, ev.NewSession, ev.PrevSessionID, ev.Err)
			if ok(ev) {
				return ev
			}
		case <-deadline:
			l.t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
	}
}

func TestStateEnsembleFailoverAndExpiry(t *testing.T) {
	cl := zktest.StartEnsemble(t, 3, zktest.Options{})
	c := dial(t, Config{Servers: cl.Addrs(), SessionTimeout: 8 * time.Second})
	log := watchEvents(t, c)
	first := log.until("connected", 10*time.Second, func(e ConnEvent) bool { return e.State == StateConnected })
	if first.SessionID == 0 || first.Server == "" || first.Server != c.Server() {
		t.Fatalf("connected event %+v (client says %s)", first, c.Server())
	}
	sid := first.SessionID
	// An ephemeral node proves the session survives.
	eph := "/failover-eph"
	if _, err := c.Conn().Create(eph, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	victim := cl.ByAddr(first.Server)
	if victim == nil {
		t.Fatalf("connected to %s, which is no member", first.Server)
	}
	start := time.Now()
	victim.Kill()

	rec := log.until("reconnecting", 10*time.Second, func(e ConnEvent) bool { return e.State != StateConnected })
	if rec.State != StateReconnecting || rec.SessionID != sid {
		t.Fatalf("after the member died: %s sid %#x, want reconnecting with %#x", rec.State, rec.SessionID, uint64(sid))
	}
	back := log.until("connected to another member", 20*time.Second, func(e ConnEvent) bool { return e.State == StateConnected })
	t.Logf("failover from %s to %s took %s", first.Server, back.Server, time.Since(start).Round(time.Millisecond))
	if back.Server == first.Server {
		t.Errorf("reconnected to the dead member %s", back.Server)
	}
	if back.SessionID != sid || back.NewSession {
		t.Errorf("session changed across failover: %#x -> %#x (new=%v)", uint64(sid), uint64(back.SessionID), back.NewSession)
	}
	if ok, _, err := c.Conn().Exists(eph); err != nil || !ok {
		t.Errorf("the ephemeral node did not survive the failover: %v %v", ok, err)
	}
	if c.State().State != StateConnected || c.SessionID() != sid {
		t.Errorf("State() = %+v", c.State())
	}

	// Expiry on the ensemble: a second client reaches the two live members
	// through relays; cutting both past its session timeout expires the
	// session, and the client goes on with a new one.
	var relays []string
	var proxies []*zktest.Proxy
	for _, s := range cl.Servers {
		if !s.Running() {
			continue
		}
		p, err := zktest.NewProxy(s.ClientAddr)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		proxies = append(proxies, p)
		relays = append(relays, p.Addr())
	}
	e := dial(t, Config{Servers: relays, SessionTimeout: 2 * time.Second})
	elog := watchEvents(t, e)
	esid := elog.until("connected", 10*time.Second, func(e ConnEvent) bool { return e.State == StateConnected }).SessionID
	ephE := "/expiry-eph"
	if _, err := e.Conn().Create(ephE, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for _, p := range proxies {
		p.Block()
	}
	elog.until("reconnecting", 5*time.Second, func(e ConnEvent) bool { return e.State == StateReconnecting })
	waitFor(t, "the ensemble to expire the session", 20*time.Second, func() bool {
		ok, _, err := c.Conn().Exists(ephE)
		return err == nil && !ok
	})
	for _, p := range proxies {
		p.Unblock()
	}
	exp := elog.until("expired", 15*time.Second, func(e ConnEvent) bool { return e.State == StateExpired || e.State == StateConnected })
	if exp.State != StateExpired || exp.PrevSessionID != esid {
		t.Fatalf("got %s prev %#x, want expired of %#x", exp.State, uint64(exp.PrevSessionID), uint64(esid))
	}
	next := elog.until("a new session", 15*time.Second, func(e ConnEvent) bool { return e.State == StateConnected })
	if !next.NewSession || next.PrevSessionID != esid || next.SessionID == esid {
		t.Errorf("after expiry: %+v", next)
	}
}

func TestStateExpiryOpensNewSession(t *testing.T) {
	cl := zktest.Shared(t)
	proxy := zktest.StartProxy(t, cl.Servers[0].ClientAddr)
	root := zktest.Path(t)
	observer := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, observer.Conn(), root)

	c := dial(t, Config{Servers: []string{proxy.Addr()}, SessionTimeout: 2 * time.Second})
	log := watchEvents(t, c)
	first := log.until("connected", 5*time.Second, func(e ConnEvent) bool { return e.State == StateConnected })
	sid := first.SessionID
	eph := root + "/eph"
	if _, err := c.Conn().Create(eph, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	// Partition the client from the server past the session timeout.
	proxy.Block()
	log.until("reconnecting", 5*time.Second, func(e ConnEvent) bool { return e.State == StateReconnecting && e.SessionID == sid })
	waitFor(t, "the server to expire the session (its ephemeral node gone)", 15*time.Second, func() bool {
		ok, _, err := observer.Conn().Exists(eph)
		return err == nil && !ok
	})
	proxy.Unblock()

	exp := log.until("expired", 15*time.Second, func(e ConnEvent) bool { return e.State == StateExpired || e.State == StateConnected })
	if exp.State != StateExpired || exp.PrevSessionID != sid {
		t.Fatalf("got %s prev %#x, want expired of %#x", exp.State, uint64(exp.PrevSessionID), uint64(sid))
	}
	next := log.until("a new session", 15*time.Second, func(e ConnEvent) bool { return e.State == StateConnected })
	if !next.NewSession || next.PrevSessionID != sid || next.SessionID == sid || next.SessionID == 0 {
		t.Errorf("after expiry: %+v, want a new session replacing %#x", next, uint64(sid))
	}
}

func TestStateClosed(t *testing.T) {
	cl := zktest.Shared(t)
	c := dial(t, Config{Servers: cl.Addrs()})
	sid := c.SessionID()
	log := watchEvents(t, c)
	c.Close()
	ev := log.until("closed", 5*time.Second, func(e ConnEvent) bool { return e.State == StateClosed })
	if ev.PrevSessionID != sid {
		t.Errorf("closed event %+v, want prev %#x", ev, uint64(sid))
	}
	c.Close() // twice is fine
	if c.State().State != StateClosed {
		t.Errorf("state after close: %s", c.State().State)
	}
}

// The watchdog's recovery (used when go-zookeeper's loop is stuck) opens a
// new session on the same Client and sends the credentials again.
func TestStateRecoverReopensWithCredentials(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	auth := []Auth{{Scheme: "digest", Secret: []byte("bob:pw")}}
	c := dial(t, Config{Servers: cl.Addrs(), Auth: auth})
	zktest.MakePath(t, c.Conn(), root)
	secret := root + "/s"
	if _, err := c.Conn().Create(secret, []byte("x"), 0, zk.DigestACL(zk.PermAll, "bob", "pw")); err != nil {
		t.Fatal(err)
	}
	log := watchEvents(t, c)
	sid := c.SessionID()
	c.recover()
	exp := log.until("expired", 5*time.Second, func(e ConnEvent) bool { return e.State == StateExpired })
	if exp.PrevSessionID != sid || exp.Err == nil {
		t.Errorf("expired event %+v", exp)
	}
	next := log.until("new session", 10*time.Second, func(e ConnEvent) bool { return e.State == StateConnected })
	if !next.NewSession || next.SessionID == sid {
		t.Errorf("after recover: %+v", next)
	}
	waitFor(t, "the credentials to be sent again", 5*time.Second, func() bool {
		_, err := c.Get(secret)
		return err == nil
	})
}

func TestStateAuthFailed(t *testing.T) {
	cl := zktest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := Connect(ctx, Config{Servers: cl.Addrs(), Auth: []Auth{{Scheme: "nosuchscheme", Secret: []byte("x")}}})
	if err == nil || !strings.Contains(err.Error(), "refused the nosuchscheme credentials") {
		t.Fatalf("err = %v", err)
	}
}

// A connection whose go-zookeeper loop stops (here: its receive goroutine is
// held inside an event callback, as a stuck credential re-send holds the
// reconnect loop) is detected by the watchdog and replaced by a new session.
func TestWatchdogReplacesStuckConnection(t *testing.T) {
	cl := zktest.Shared(t)
	root := zktest.Path(t)
	probe, grace := watchdogProbe, watchdogGrace
	watchdogProbe, watchdogGrace = 100*time.Millisecond, 500*time.Millisecond
	c := dial(t, Config{Servers: cl.Addrs(), SessionTimeout: time.Second})
	watchdogProbe, watchdogGrace = probe, grace
	other := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, other.Conn(), root)

	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	stuck := c.AddNodeEventHandler(func(e zk.Event) {
		if e.Path == root && e.Type == zk.EventNodeDataChanged {
			<-release // hold go-zookeeper's receive goroutine
		}
	})
	defer stuck()
	if _, _, _, err := c.Conn().GetW(root); err != nil {
		t.Fatal(err)
	}
	log := watchEvents(t, c)
	sid := c.SessionID()
	if _, err := other.Conn().Set(root, []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	exp := log.until("the watchdog to give up on the stuck connection", 10*time.Second, func(e ConnEvent) bool { return e.State == StateExpired })
	if exp.PrevSessionID != sid || exp.Err == nil {
		t.Errorf("expired event %+v", exp)
	}
	next := log.until("a new session", 10*time.Second, func(e ConnEvent) bool { return e.State == StateConnected })
	if !next.NewSession || next.SessionID == sid {
		t.Errorf("after the watchdog: %+v", next)
	}
	if _, err := c.Get(root); err != nil {
		t.Errorf("the replaced connection does not work: %v", err)
	}
}

// TestStateSessionBeforeConnectReturns: a connection's session can be up
// before zk.Connect returns the connection (go-zookeeper's loop runs the
// handshake at once). The event then neither reads a connection the
// client does not have yet (nor a replaced one's session id) nor publishes
// a session id of 0: the id waits for open.
func TestStateSessionBeforeConnectReturns(t *testing.T) {
	c := &Client{connGen: 2, connOf: 1, subs: map[int]chan ConnEvent{}}
	c.onSessionEvent(2, zk.Event{Type: zk.EventSession, State: zk.StateHasSession, Server: "127.0.0.1:2181"})
	if !c.pendingSID || c.State().State == StateConnected || c.sid != 0 {
		t.Fatalf("pending %v, state %+v, sid %#x: want the session's id left to open", c.pendingSID, c.State(), c.sid)
	}
}
