package dbtest

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// MariaClient is a real `mariadb` command-line client connected as
// MariaDBUser over TCP, in batch mode: each statement written to it, each
// result row read back as one tab-separated line.
type MariaClient struct {
	ID     int64 // its connection id (CONNECTION_ID())
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *lockedBuffer
	done   chan struct{}
	once   sync.Once
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Client starts a mariadb client on m for t (closed when t ends) and reads
// its connection id.
func (m *MariaDB) Client(t testing.TB) *MariaClient {
	t.Helper()
	cmd := exec.Command("mariadb", "--no-defaults", "--batch", "--skip-column-names", "--unbuffered",
		"--protocol=TCP", "-h", "127.0.0.1", "-P", strconv.Itoa(m.Port), "-u", MariaDBUser)
	cmd.Env = append(os.Environ(), "MYSQL_PWD="+MariaDBPassword) // never on its command line
	c := &MariaClient{cmd: cmd, lines: make(chan string, 64), stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	c.stdin, _ = cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("mariadb client: %v", err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(c.Close)
	id, err := strconv.ParseInt(c.Query(t, "SELECT CONNECTION_ID();"), 10, 64)
	if err != nil {
		t.Fatalf("mariadb client: connection id: %v", err)
	}
	c.ID = id
	return c
}

// Send writes one statement (a trailing ';' added when missing) without
// waiting for its answer.
func (c *MariaClient) Send(t testing.TB, stmt string) {
	t.Helper()
	if !strings.HasSuffix(strings.TrimSpace(stmt), ";") {
		stmt += ";"
	}
	if _, err := io.WriteString(c.stdin, stmt+"\n"); err != nil {
		t.Fatalf("mariadb client %d: write %q: %v (%s)", c.ID, stmt, err, c.stderr.String())
	}
}

// Line returns the client's next output line, failing t when none comes
// within a minute or the client has exited.
func (c *MariaClient) Line(t testing.TB) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			t.Fatalf("mariadb client %d exited: %s", c.ID, c.stderr.String())
		}
		return l
	case <-time.After(time.Minute):
		t.Fatalf("mariadb client %d: no answer within a minute (%s)", c.ID, c.stderr.String())
	}
	return ""
}

// Query sends stmt and returns its one-line answer.
func (c *MariaClient) Query(t testing.TB, stmt string) string {
	t.Helper()
	c.Send(t, stmt)
	return c.Line(t)
}

// Exited is closed when the client process has exited.
func (c *MariaClient) Exited() <-chan struct{} { return c.done }

// Stderr is what the client has written to its standard error so far.
func (c *MariaClient) Stderr() string { return c.stderr.String() }

// Close ends the client's input (it disconnects, releasing its locks) and
// waits for it; a client still waiting for an answer after two seconds is
// killed. Again: nothing.
func (c *MariaClient) Close() {
	c.once.Do(func() {
		c.stdin.Close()
		select {
		case <-c.done:
		case <-time.After(2 * time.Second):
			c.cmd.Process.Kill()
			<-c.done
		}
	})
}

// Kill kills the client process (SIGKILL): its connection closes without
// a word from it, as a crashed client's does.
func (c *MariaClient) Kill() {
	c.cmd.Process.Kill()
	c.Close()
}

// Root runs statements as root over the server's socket (root needs no
// password there), for what the test account may not do.
func (m *MariaDB) Root(t testing.TB, stmts string) string {
	t.Helper()
	out, err := exec.Command("mariadb", "--no-defaults", "--batch", "--skip-column-names", "-S", m.Socket, "-u", "root", "-e", stmts).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb as root: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}
