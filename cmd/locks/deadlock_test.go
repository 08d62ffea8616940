package locks_test

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// kazooCrossLocks is two real kazoo clients, each holding one lock and
// then waiting on the other's: a wait-for cycle across two directories.
// It prints both sessions once both wait, then stays until stdin closes.
const kazooCrossLocks = `
import sys, threading
from kazoo.client import KazooClient
hosts, x, y = sys.argv[1:4]
a, b = KazooClient(hosts=hosts, timeout=30), KazooClient(hosts=hosts, timeout=30)
a.start(); b.start()
ax, by = a.Lock(x, "a"), b.Lock(y, "b")
ax.acquire(); by.acquire()
for c, p, who in ((a, y, "a"), (b, x, "b")):
    threading.Thread(target=c.Lock(p, who).acquire, daemon=True).start()
for c, p in ((a, y), (b, x)):
    while len(c.get_children(p)) < 2:
        threading.Event().wait(0.05)
print("0x%x 0x%x" % (a.client_id[0], b.client_id[0]), flush=True)
sys.stdin.read()
`

// TestDoctorSessionDeadlockKazoo: two real kazoo clients each hold one
// lock and wait on the other's; doctor reports one session-deadlock
// naming both sessions (exit 1), and sessions lists each with the lock it
// holds and the one it waits on.
func TestDoctorSessionDeadlockKazoo(t *testing.T) {
	srv := zktest.Shared(t)
	if err := exec.Command("/usr/bin/python3", "-c", "import kazoo").Run(); err != nil {
		zktest.Unavailable(t, "kazoo is not installed for /usr/bin/python3 (apt-get install -y python3-kazoo)")
	}
	base := zktest.Path(t)
	x, y := base+"/locks/x", base+"/locks/y"
	cmd := exec.Command("/usr/bin/python3", "-c", kazooCrossLocks, srv.ConnectString(), x, y)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the kazoo clients never both waited: %v", err)
	}
	sessions := strings.Fields(line)
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}

	var out string
	deadline := time.Now().Add(30 * time.Second)
	for {
		var code int
		code, out, _ = cmdtest.RunBinary(t, env, "-s", srv.ConnectString(), "doctor", base)
		if code == 1 && strings.Contains(out, "session-deadlock") || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // until the servers list both waits, with a deadline
	}
	if strings.Count(out, "session-deadlock") != 1 {
		t.Fatalf("doctor: want one session-deadlock line:\n%s", out)
	}
	for _, s := range sessions {
		if !strings.Contains(out, s) {
			t.Errorf("the session-deadlock does not name %s:\n%s", s, out)
		}
	}
	doc := cmdtest.SessionsUntil(t, srv.ConnectString(), func(d cmdtest.SessionsDoc) bool { return len(d.Sessions) == 2 }, base, "--locks")
	for _, s := range doc.Sessions {
		if len(s.Holds) != 1 || len(s.WaitsOn) != 1 || s.Holds[0].Lock == s.WaitsOn[0].Lock {
			t.Errorf("session %s: holds %+v, waits on %+v", s.Session, s.Holds, s.WaitsOn)
		}
	}
}
