//go:build linux

package evict

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/audit/audittest"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/internal/locktest"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// openPTY opens a pseudo-terminal: ctl is the side the test types into,
// tty the terminal a command reads as its stdin. What the terminal echoes
// is read and dropped.
func openPTY(t *testing.T) (ctl, tty *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ctl.Close() })
	if err := unix.IoctlSetPointerInt(int(ctl.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ctl.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the terminal side: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	go io.Copy(io.Discard, ctl)
	return ctl, tty
}

// evictAtTerminal runs `zkscope evict node` with a terminal as stdin,
// types answer at its prompt and returns the exit status and stderr.
func evictAtTerminal(t *testing.T, state, servers, node, answer string) (int, string) {
	t.Helper()
	ctl, tty := openPTY(t)
	cmd := locktest.ZkscopeCmd(t, state, servers, "evict", node)
	cmd.Stdin = tty
	out := &locktest.LockedBuffer{}
	cmd.Stdout = out
	stderr, exited := locktest.StartCLI(t, cmd, "")
	locktest.WaitFor(t, "the confirmation prompt", 60*time.Second, func() bool {
		return strings.Contains(out.String(), "Type the node's sequence number")
	})
	if _, err := io.WriteString(ctl, answer+"\n"); err != nil {
		t.Fatal(err)
	}
	return locktest.WaitExit(t, cmd, exited, stderr), stderr.String()
}

// TestCLIEvictTypedConfirmation: at a terminal the evict command asks for
// the node's sequence number; a wrong one is refused (exit 2, nothing
// deleted), the right one deletes.
func TestCLIEvictTypedConfirmation(t *testing.T) {
	cl := zktest.Shared(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	holder := locktest.NewClient(t, cl.Addrs())
	h, err := take.Take(context.Background(), holder, zktest.Path(t), take.Options{Library: lockops.Curator, Note: "nightly"})
	if err != nil {
		t.Fatal(err)
	}
	code, stderr := evictAtTerminal(t, state, cl.ConnectString(), h.Node, "0000000999")
	if code != lockops.ExitRefused || !strings.Contains(stderr, "not confirmed") || !strings.Contains(stderr, "nothing deleted") {
		t.Fatalf("wrong confirmation: exit %d, stderr:\n%s", code, stderr)
	}
	if h.State() != hold.StateHeld {
		t.Fatalf("holder state %s after a refused evict", h.State())
	}
	code, stderr = evictAtTerminal(t, state, cl.ConnectString(), h.Node, h.Node[len(h.Node)-10:])
	if code != 0 {
		t.Fatalf("confirmed evict: exit %d, stderr:\n%s", code, stderr)
	}
	select {
	case <-h.LostCh():
	case <-time.After(30 * time.Second):
		t.Fatal("the holder did not notice the eviction")
	}
	entries := audittest.Read(t, filepath.Join(state, "zkscope", "audit.log"))
	if !audittest.Has(entries, lockops.OpForceDelete, audit.Refused, h.Node) || !audittest.Has(entries, lockops.OpForceDelete, audit.OK, h.Node) {
		t.Fatalf("audit log lacks the refused and the done force-delete: %+v", entries)
	}
}
