package report

// Queue positions: what a person reads counts from 1 (the holder of a
// mutex is "1"), `locks --json`'s position from 0 (the contract).

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestTableCountsFromOne: the table's # column is 1 for the holder and 2
// for the first waiter; the JSON of the same queue keeps 0 and 1.
func TestTableCountsFromOne(t *testing.T) {
	now := time.Now()
	d := lockops.Dir{Path: "/app/locks/orders", Children: []lockops.Child{
		{Name: "_c_11111111-0000-4000-8000-000000000001-lock-0000000000", Owner: 0x1001, Ctime: now.UnixMilli()},
		{Name: "_c_11111111-0000-4000-8000-000000000002-lock-0000000001", Owner: 0x1002, Ctime: now.UnixMilli()},
	}}
	q := lockops.Decode(d, lockops.DecodeOptions{})
	var table bytes.Buffer
	if err := WriteTableWith(&table, []lockops.Queue{q}, now, TableOptions{FullNames: true}); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^  1 +holding `).Match(table.Bytes()) || !regexp.MustCompile(`(?m)^  2 +waiting `).Match(table.Bytes()) {
		t.Errorf("the table does not count from 1:\n%s", table.String())
	}
	var out bytes.Buffer
	if err := WriteJSON(&out, nil, []lockops.Queue{q}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Locks []struct {
			Participants []struct {
				State    string
				Position int
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if ps := doc.Locks[0].Participants; ps[0].State != "holding" || ps[0].Position != 0 || ps[1].Position != 1 {
		t.Errorf("JSON positions are no longer 0-based: %s", out.String())
	}
}

// TestCLIWaitingPositionCountsFromOne: behind one holder, `zkscope lock`
// says it waits at position 2 of 2.
func TestCLIWaitingPositionCountsFromOne(t *testing.T) {
	cl := zktest.Shared(t)
	c := locktest.NewClient(t, cl.Addrs())
	lockPath := zktest.Path(t)
	zktest.MakePath(t, c.Conn(), c.Abs(lockPath))
	holder, err := c.Conn().Create(c.Abs(lockPath)+"/_c_11111111-0000-4000-8000-000000000001-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	cmd := locktest.ZkscopeCmd(t, t.TempDir(), cl.ConnectString(), "lock", lockPath, "--timeout", "60s")
	out, exited := locktest.StartCLI(t, cmd, "waiting for")
	line := out.String()
	if !strings.Contains(line, "position 2 of 2, watching "+zkview.Join(lockPath, holder[strings.LastIndexByte(holder, '/')+1:])) {
		t.Errorf("the waiting line does not count from 1:\n%s", line)
	}
	cmd.Process.Signal(syscall.SIGINT)
	locktest.WaitExit(t, cmd, exited, out)
}
