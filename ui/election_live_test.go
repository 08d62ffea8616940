package ui

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
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
