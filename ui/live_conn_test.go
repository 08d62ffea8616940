package ui

import (
	"context"
	"github.com/zkscope/zkscope/ui/common"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLiveConnectionHonesty cuts the TUI's connection past its session
// timeout (a relay in front of the real server): the header says
// reconnecting, then the session is expired and a new one opened, the
// status line says the tree is reloaded, and the open directory shows a
// child made while the TUI was cut off (its watch re-armed on the new
// session).
func TestLiveConnectionHonesty(t *testing.T) {
	cl := zktest.Shared(t)
	proxy := zktest.StartProxy(t, cl.Servers[0].ClientAddr)
	observer := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, observer.Conn(), base)
	liveCreate(t, observer.Conn(), base+"/before", nil, 0)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := zkview.Connect(ctx, zkview.Config{Servers: []string{proxy.Addr()}, SessionTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	eph := base + "/ours"
	if _, err := c.Conn().Create(eph, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	d := newLiveDriver(New(Options{Client: c, Start: base, Theme: "dark"}), 120, 35)
	defer d.Close()
	d.until(t, 15*time.Second, "the directory open", func(d *liveDriver) bool {
		return strings.Contains(d.screen(), "before") && strings.Contains(d.screen(), "● connected")
	})
	first := d.m.state.SessionID

	proxy.Block()
	d.until(t, 15*time.Second, "the header saying reconnecting", func(d *liveDriver) bool {
		return strings.Contains(d.screen(), "● reconnecting")
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, _, err := observer.Conn().Exists(eph)
		if err == nil && !ok {
			break // the server expired the cut-off session
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never expired the cut-off session")
		}
		d.drain()
		time.Sleep(50 * time.Millisecond)
	}
	liveCreate(t, observer.Conn(), base+"/while-cut-off", nil, 0)
	proxy.Unblock()

	d.until(t, 20*time.Second, "a new session with the tree reloaded", func(d *liveDriver) bool {
		return d.m.state.State == zkview.StateConnected && d.m.state.SessionID != first &&
			strings.Contains(d.screen(), "while-cut-off")
	})
	if !strings.Contains(strings.ToLower(d.m.status.Text), "session") {
		t.Errorf("status after the new session: %q, want it to say the session was replaced", d.m.status.Text)
	}
	if !strings.Contains(d.screen(), common.HexID(d.m.state.SessionID)) {
		t.Errorf("header does not show the new session %s:\n%s", common.HexID(d.m.state.SessionID), d.screen())
	}
}
