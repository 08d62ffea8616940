package ui

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestLiveLockReadOfElections: the TUI's read of a lock (lockCmd) takes an
// ephemeral node as a plain ephemeral lock held by its owner, and a Kafka
// root (controller with its epoch) as Kafka's controller election, its
// payload decoded.
func TestLiveLockReadOfElections(t *testing.T) {
	c, owner := liveClient(t), liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base+"/kafka/brokers/ids")
	liveCreate(t, owner.Conn(), base+"/maintenance", []byte("alice@ops1"), zk.FlagEphemeral)
	liveCreate(t, c.Conn(), base+"/kafka/controller_epoch", []byte("4"), 0)
	liveCreate(t, owner.Conn(), base+"/kafka/controller", []byte(`{"version":1,"brokerid":3,"timestamp":"1700000000000"}`), zk.FlagEphemeral)

	msg, _ := lockCmd(c, 1, base+"/maintenance")().(lockMsg)
	if !msg.isDir || msg.err != nil || msg.queue.Kind != lockops.KindEphemeralLock || len(msg.queue.Participants) != 1 ||
		msg.queue.Participants[0].Session != owner.SessionID() {
		t.Errorf("the ephemeral node read as %+v", msg)
	}
	msg, _ = lockCmd(c, 2, base+"/kafka")().(lockMsg)
	if !msg.isDir || msg.queue.Kind != lockops.KindKafkaController || len(msg.queue.Participants) != 1 ||
		msg.queue.Participants[0].Payload.Get("brokerid") != "3" {
		t.Errorf("the Kafka root read as %+v", msg)
	}
	msg, _ = lockCmd(c, 3, base+"/kafka/brokers")().(lockMsg)
	if msg.isDir {
		t.Errorf("a plain persistent directory read as a lock: %+v", msg.queue)
	}
}

// TestLiveEphemeralLockWhenServersAnswer: an ephemeral node shown before
// the servers first answered opens as a plain ephemeral lock once their
// answer lists a session watching it, without moving the cursor; a node
// only zkscope itself watches does not.
func TestLiveEphemeralLockWhenServersAnswer(t *testing.T) {
	c, owner, waiter := liveClient(t), liveClient(t), liveClient(t)
	base := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), base)
	liveCreate(t, owner.Conn(), base+"/maintenance", []byte("alice@ops1"), zk.FlagEphemeral)
	m := New(Options{Client: c, Start: base + "/maintenance", Theme: "dark"})
	n, err := c.Get(base + "/maintenance")
	if err != nil {
		t.Fatal(err)
	}
	m.detail.Select(n.Path, common.Node{}, false, false)
	m.detail.OnSelect(common.Node{Path: n.Path, Stat: n.Stat, Data: n.Data, HasStat: true}, nil, nil)
	// Only zkscope's own session watches it: no lock.
	if _, _, _, err := c.Conn().GetW(c.Abs(base + "/maintenance")); err != nil {
		t.Fatal(err)
	}
	m.ens = c.Introspect(context.Background())
	if cmd := m.ephemeralLockNow(); cmd != nil {
		t.Fatal("a node only zkscope watches is read as a lock")
	}
	if _, _, _, err := waiter.Conn().ExistsW(waiter.Abs(base + "/maintenance")); err != nil {
		t.Fatal(err)
	}
	m.ens = c.Introspect(context.Background())
	cmd := m.ephemeralLockNow()
	if cmd == nil {
		t.Fatal("the servers list a waiter, but the node is not read as a lock")
	}
	if msg, _ := cmd().(lockMsg); !msg.isDir || msg.queue.Kind != lockops.KindEphemeralLock {
		t.Errorf("read as %+v", msg)
	}
}
