package history_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/txnlog"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestHistoryFromSnapshot: on a server whose early logs were purged (the
// logs that hold the lock nodes' creation deleted from the copy, the
// snapshots kept), history starts from the snapshot: the holder and the
// waiter that existed before the remaining logs are known, with their
// real arrival, and the holder's release hands the lock to the waiter.
func TestHistoryFromSnapshot(t *testing.T) {
	srv := zktest.StartStandalone(t, zktest.Options{JVMFlags: []string{"-Dzookeeper.snapCount=10"}})
	connect := srv.ConnectString()
	c := cmdtest.Dial(t, connect)
	lock := "/snap/deploy"
	zktest.MakePath(t, c, lock)
	holder := cmdtest.Dial(t, connect)
	name := lock + "/0123456789abcdef0123456789abcdef__lock__"
	h, err := holder.Create(name, []byte("old"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Create(name, []byte("waiter"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	_, wst, err := c.Get(w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create("/snap/counter", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ { // rolls the log several times (a snapshot at each roll)
		if _, err := c.Set("/snap/counter", []byte(strconv.Itoa(i)), -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := holder.Delete(h, -1); err != nil {
		t.Fatal(err)
	}
	data := copyDataDir(t, filepath.Join(srv.Servers[0].Dir, "data"))
	purged := purgeLogsUpTo(t, filepath.Join(data, "version-2"), wst.Czxid)
	if purged == 0 {
		t.Fatal("no log to purge: the server did not roll its log")
	}
	doc, out := historyJSON(t, "/snap", "--txnlog", data)
	if len(doc.Locks) != 1 || len(doc.Locks[0].Tenures) != 2 {
		t.Fatalf("history after %d purged logs:\n%s", purged, out)
	}
	old, waiter := doc.Locks[0].Tenures[0], doc.Locks[0].Tenures[1]
	if old.Data != "old" || old.End != "released" || waiter.Data != "waiter" || waiter.Held == nil || waiter.End != "present" {
		t.Fatalf("tenures from the snapshot:\n%s", out)
	}
}

// purgeLogsUpTo deletes the log files of dir that hold a transaction at
// or before zxid (as autopurge would, keeping the snapshots), but the
// last, and returns how many it deleted; it fails the test when the last
// one holds such a transaction too.
func purgeLogsUpTo(t *testing.T, dir string, zxid int64) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var starts []int64
	for _, e := range ents {
		if z, ok := txnlog.FileZxid(e.Name(), "log"); ok {
			starts = append(starts, z)
		}
	}
	slices.Sort(starts)
	n := 0
	for i := 0; i+1 < len(starts) && starts[i] <= zxid; i++ {
		if err := os.Remove(filepath.Join(dir, "log."+strconv.FormatInt(starts[i], 16))); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if starts[n] <= zxid {
		t.Fatalf("the last log (from zxid %#x) holds zxid %#x: write more to roll it", starts[n], zxid)
	}
	return n
}
