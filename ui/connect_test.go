package ui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestDialScreen: started without a client, the UI shows whom it connects
// to at once, then the last failed attempt, then why it gave up (r tries
// again, q quits); a stale dial's answer is dropped.
func TestDialScreen(t *testing.T) {
	waitForever := func(ctx context.Context, _ func(string)) (*zkview.Client, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	m := New(Options{Dial: waitForever, Servers: []string{"10.0.0.1:2181"}, Theme: "dark", Context: "prod"})
	defer m.Close()
	m = step(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	screen := func() string { return ansi.Strip(m.render()) }
	for _, want := range []string{"ctx prod", "10.0.0.1:2181", "● connecting", "Connecting to 10.0.0.1:2181…", "q quits"} {
		if !strings.Contains(screen(), want) {
			t.Fatalf("the connecting screen lacks %q:\n%s", want, screen())
		}
	}
	m = step(t, m, dialProblemMsg{problem: "failed to connect to 10.0.0.1:2181: connection refused"})
	if !strings.Contains(screen(), "Last attempt: failed to connect to 10.0.0.1:2181: connection refused") {
		t.Fatalf("the last attempt is not shown:\n%s", screen())
	}
	first := m.reqs["dial"]
	m = step(t, m, dialedMsg{id: first, err: errors.New("no session within 10s")})
	if s := screen(); !strings.Contains(s, "Could not connect to 10.0.0.1:2181: no session within 10s") || !strings.Contains(s, "r tries again") {
		t.Fatalf("the failure is not shown:\n%s", s)
	}
	m = pressKeys(t, m, "r")
	if m.dial.err != nil || m.reqs["dial"] == first || !strings.Contains(screen(), "Connecting to") {
		t.Fatalf("r did not try again:\n%s", screen())
	}
	m = step(t, m, dialedMsg{id: first, err: context.Canceled}) // the first dial, cancelled
	if m.dial.err != nil {
		t.Fatalf("a stale dial's answer was taken: %v", m.dial.err)
	}
	m = pressKeys(t, m, "j", "e", ":") // nothing to act on yet
	if m.mode != modeNormal {
		t.Fatalf("keys acted while connecting: mode %v", m.mode)
	}
	_, cmd := m.Update(keyMsg("q"))
	if !isQuit(cmd) {
		t.Fatal("q did not quit while connecting")
	}
}

// TestLiveDialUnreachableThenReachable: against a server that drops every
// connection, the screen shows the failed attempts and then why it gave
// up; against a port nobody listens on, it gives up at once saying so;
// against the real server, the tree opens once connected.
func TestLiveDialUnreachableThenReachable(t *testing.T) {
	port, err := zktest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	closed := fmt.Sprintf("127.0.0.1:%d", port)
	dropper, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer dropper.Close()
	go func() {
		for {
			c, err := dropper.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	nobody := dropper.Addr().String()
	dial := func(servers []string, timeout time.Duration) func(context.Context, func(string)) (*zkview.Client, error) {
		return func(ctx context.Context, report func(string)) (*zkview.Client, error) {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return zkview.ConnectReporting(ctx, zkview.Config{Servers: servers, SessionTimeout: 20 * time.Second}, report)
		}
	}
	d := newLiveDriver(New(Options{Dial: dial([]string{nobody}, 3*time.Second), Servers: []string{nobody}, Theme: "dark"}), 120, 30)
	if !strings.Contains(d.screen(), "Connecting to "+nobody) {
		t.Fatalf("no connecting screen at once:\n%s", d.screen())
	}
	sawAttempt := false
	d.until(t, 15*time.Second, "the connect to give up", func(d *liveDriver) bool {
		sawAttempt = sawAttempt || strings.Contains(d.screen(), "Last attempt:")
		return d.m.dial.err != nil
	})
	if !sawAttempt {
		t.Errorf("no failed attempt was shown while connecting")
	}
	if s := d.screen(); !strings.Contains(s, "Could not connect to "+nobody) || !strings.Contains(s, "q quits") {
		t.Fatalf("the failure is not shown:\n%s", s)
	}
	d.Close()

	d = newLiveDriver(New(Options{Dial: dial([]string{closed}, 10*time.Minute), Servers: []string{closed}, Theme: "dark"}), 120, 30)
	d.until(t, 15*time.Second, "the connect to give up on a closed port", func(d *liveDriver) bool { return d.m.dial.err != nil })
	if s := d.screen(); !strings.Contains(s, "Could not connect to "+closed) || !strings.Contains(s, "connection refused") {
		t.Fatalf("the refusal is not shown:\n%s", s)
	}
	d.Close()

	cl := zktest.Shared(t)
	base := zktest.Path(t)
	c := liveClient(t)
	zktest.MakePath(t, c.Conn(), base+"/here")
	d = newLiveDriver(New(Options{Dial: dial(cl.Addrs(), 20*time.Second), Servers: cl.Addrs(), Start: base, Theme: "dark"}), 120, 30)
	defer d.Close()
	d.until(t, 20*time.Second, "the tree once connected", func(d *liveDriver) bool {
		return d.m.client != nil && d.m.tree.CursorPath() == base && strings.Contains(d.screen(), "here") && strings.Contains(d.screen(), "● connected")
	})
	d.m.client.Close() // the UI's own (Run closes it)
}

// TestLiveCdCompletionAsks: `:cd` completion lists a level the tree has
// not loaded (asking the server), then completes from it.
func TestLiveCdCompletionAsks(t *testing.T) {
	c := liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base+"/deep/alpha-one")
	zktest.MakePath(t, c.Conn(), base+"/deep/alpha-two")
	zktest.MakePath(t, c.Conn(), base+"/deep/beta")

	d := newLiveDriver(New(Options{Client: c, Start: base, Theme: "dark"}), 120, 30)
	defer d.Close()
	d.until(t, 15*time.Second, "the start directory", func(d *liveDriver) bool { return d.m.tree.CursorPath() == base })
	if _, open := d.m.tree.Dir(base + "/deep"); open {
		t.Fatal("deep is loaded already: the test needs a level the tree has not loaded")
	}
	d.apply(tea.KeyPressMsg{Code: ':', Text: ":"})
	typeText(d, "cd "+base+"/deep/al")
	d.until(t, 10*time.Second, "the listing of deep", func(d *liveDriver) bool { return len(d.m.input.AvailableSuggestions()) == 2 })
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab})
	if got := d.m.input.Value(); got != "cd "+base+"/deep/alpha-" {
		t.Fatalf("tab gave %q, want the common prefix", got)
	}
	if line := strings.Split(d.screen(), "\n")[29]; !strings.Contains(line, "alpha-one  alpha-two") {
		t.Fatalf("the candidates are not listed under the prompt: %q", line)
	}
	typeText(d, "t")
	d.apply(tea.KeyPressMsg{Code: tea.KeyTab})
	if got := d.m.input.Value(); got != "cd "+base+"/deep/alpha-two" {
		t.Fatalf("tab gave %q, want the one candidate", got)
	}
}
