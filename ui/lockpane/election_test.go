package lockpane

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLockPaneEphemeralLock: a plain ephemeral lock's holder and the
// waiters seen only in the servers' watch lists (no node of their own):
// each waiter is a row of its own, with its session, waiting with exists.
func TestLockPaneEphemeralLock(t *testing.T) {
	node := "/app/maintenance"
	holder := lockops.Participant{Node: node, Name: "maintenance", Mode: lockops.ModeExclusive, State: lockops.StateHolding,
		Session: 0x1000000a1b2c0001, Ephemeral: true, Data: []byte("alice@ops1"), Ctime: lockT0.Add(-time.Minute)}
	q := lockops.Queue{Path: node, Kind: lockops.KindEphemeralLock, Participants: []lockops.Participant{holder}}
	for i, s := range []int64{0x1000000a1b2c0002, 0x1000000a1b2c0003} {
		q.Participants = append(q.Participants, lockops.Participant{Node: node, Name: "maintenance", Mode: lockops.ModeExclusive,
			State: lockops.StateWaiting, Position: i + 1, Session: s, Ephemeral: true, WatcherOnly: true,
			Watches: node, WatchKind: lockops.WatchExists, WatchObserved: boolPtr(true), Client: "10.0.0.9:4000"})
	}
	p := testPane(themes.Dark, 140, 40)
	paneWatchers(&q) // as the pane's own reads do (viewedQueue)
	p.SetQueueAt(q, lockT0)
	out := paneScreen(p)
	checkPaneShape(t, p, out)
	if strings.Contains(out, "cycle") || !strings.Contains(out, "waiting (exists)") {
		t.Errorf("the waiters' chain or age:\n%s", out)
	}
	for _, want := range []string{"alice@ops1", "watcher 0x1000000a1b2c0002", "watcher 0x1000000a1b2c0003"} {
		if !strings.Contains(out, want) {
			t.Errorf("the pane lacks %q:\n%s", want, out)
		}
	}
}

// TestLockPaneForceLeaderLive: on a real server with Kafka's layout (two
// brokers registered, broker 1 the controller, broker 2 watching it), X
// on the controller in the lock pane opens the force-delete dialog with
// the servers' preview: it says a new Kafka election follows, the node's
// name alone does not confirm, "kafka controller" does, and the node is
// deleted. Read-only, X opens nothing.
func TestLockPaneForceLeaderLive(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	dial := func() *zk.Conn {
		c, _, err := zk.Connect(srv.Addrs(), 10*time.Second, zk.WithLogInfo(false))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	admin, b1, b2 := dial(), dial(), dial()
	kafka := base + "/kafka"
	zktest.MakePath(t, admin, kafka+"/brokers/ids")
	mk := func(c *zk.Conn, p, data string, flags int32) {
		if _, err := c.Create(p, []byte(data), flags, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	mk(admin, kafka+"/controller_epoch", "3", 0)
	mk(b1, kafka+"/brokers/ids/1", `{"host":"kafka1","port":9092}`, zk.FlagEphemeral)
	mk(b2, kafka+"/brokers/ids/2", `{"host":"kafka2","port":9092}`, zk.FlagEphemeral)
	mk(b1, kafka+"/controller", `{"version":1,"brokerid":1,"timestamp":"1700000000000"}`, zk.FlagEphemeral)
	if _, _, _, err := b2.ExistsW(kafka + "/controller"); err != nil {
		t.Fatal(err)
	}

	p := testPane(themes.Dark, 120, 30)
	p.clock = time.Now
	p.SetClient(liveClient(t), false)
	pump(t, p, p.Show(true, kafka), "the controller election", func() bool {
		return p.queue.Kind == lockops.KindKafkaController && len(p.queue.Participants) == 2
	})
	cmd, _ := p.ActionKey(lockKey("X"), kafka, true)
	fd, ok := front[*dialog.ForceDelete](p)
	if !ok {
		t.Fatalf("X on the controller opened no force-delete dialog; note %q", p.note.Text)
	}
	pump(t, p, cmd, "the preview", func() bool { return fd.Preview() != nil || !p.Modal() })
	if !p.Modal() {
		t.Fatalf("the preview was refused: %q", p.note.Text)
	}
	box := dialogBox(p)
	for _, want := range []string{"LEADER of Kafka's election", "a new election: 1 session(s)", `Type "kafka controller"`, "Kafka elects a new controller"} {
		if !strings.Contains(box, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, box)
		}
	}
	typeText(p, "controller")
	press(p, "enter")
	if !p.Modal() {
		t.Fatal("the node's name alone confirmed the controller's delete")
	}
	for range 10 {
		press(p, "backspace")
	}
	typeText(p, "kafka controller")
	pump(t, p, press(p, "enter"), "the delete", func() bool { return p.act.busy == "" && strings.HasPrefix(p.note.Text, "Deleted") })
	if ok, _, err := admin.Exists(kafka + "/controller"); ok || err != nil {
		t.Fatalf("the controller is still there (%v); note %q", err, p.note.Text)
	}

	ro := testPane(themes.Dark, 120, 30)
	ro.SetClient(liveClient(t), true)
	ro.SetQueueAt(p.queue, lockT0)
	if _, ok := ro.ActionKey(lockKey("X"), kafka, true); !ok || ro.Modal() || !strings.Contains(ro.note.Text, "Read-only") {
		t.Fatalf("read-only: X opened a dialog or said %q", ro.note.Text)
	}
}

// pump runs cmd and the commands its messages lead to, delivering each
// message as the root model does, until cond holds (a minute at most).
// Commands that block (watches) are left running.
func pump(t *testing.T, p *Model, cmd tea.Cmd, what string, cond func() bool) {
	t.Helper()
	msgs := make(chan tea.Msg, 64)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c != nil {
			go func() { msgs <- c() }()
		}
	}
	run(cmd)
	deadline := time.After(time.Minute)
	for !cond() {
		select {
		case msg := <-msgs:
			switch m := msg.(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range m {
					run(c)
				}
			default:
				run(send(p, m))
			}
		case <-deadline:
			t.Fatalf("no %s within a minute; note %q", what, p.note.Text)
		}
	}
}

// TestLockPaneElectionWithoutLeader: between two elections the pane shows
// the candidates watching the missing leader node (nobody holds) and the
// no-leader problem, and X on a candidate deletes nothing.
func TestLockPaneElectionWithoutLeader(t *testing.T) {
	node := "/kafka/controller"
	q := lockops.Queue{Path: "/kafka", Kind: lockops.KindKafkaController,
		Problems: []lockops.Problem{{Kind: lockops.ProblemNoLeader, Node: node, Detail: "no Kafka controller now"}}}
	for i, s := range []int64{0x1000000a1b2c0002, 0x1000000a1b2c0003} {
		q.Participants = append(q.Participants, lockops.Participant{Node: node, Name: "controller", Mode: lockops.ModeLeader,
			State: lockops.StateWaiting, Position: i, Session: s, Ephemeral: true, WatcherOnly: true,
			Watches: node, WatchKind: lockops.WatchExists, WatchObserved: boolPtr(true), Client: "10.0.0.9:4000"})
	}
	p := testPane(themes.Dark, 140, 30)
	paneWatchers(&q)
	p.SetQueueAt(q, lockT0)
	out := paneScreen(p)
	checkPaneShape(t, p, out)
	for _, want := range []string{"0 holding · 2 waiting", "no-leader", "watcher 0x1000000a1b2c0002", "watcher 0x1000000a1b2c0003"} {
		if !strings.Contains(out, want) {
			t.Errorf("the pane lacks %q:\n%s", want, out)
		}
	}
	if _, ok := p.ActionKey(lockKey("X"), "/kafka", true); !ok || p.Modal() || !strings.Contains(p.note.Text, "owns no node") {
		t.Errorf("X on a candidate that owns no node: modal %v, note %q", p.Modal(), p.note.Text)
	}
}
