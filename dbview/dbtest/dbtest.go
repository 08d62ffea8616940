// Package dbtest starts a real Debian PostgreSQL server for tests: a
// temporary cluster made with initdb, started on a free loopback port,
// one per test binary (Main stops it). Without the binaries the tests
// skip with the install command, except under CI=true where they fail.
package dbtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Install is what installs the real parts these tests use.
const Install = "apt-get install -y postgresql python3-psycopg2"

// InCI reports whether CI=true: a missing real part fails rather than skips.
func InCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// Unavailable skips t with why and the install command, or fails it under CI.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	msg := fmt.Sprintf("%s (install: %s)", why, Install)
	if InCI() {
		t.Fatalf("CI=true and a real part is missing: %s", msg)
	}
	t.Skip(msg)
}

// PGBin is the newest /usr/lib/postgresql/*/bin holding initdb and
// postgres, "" when none.
func PGBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgDirVersion(dirs[i]) > pgDirVersion(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	return ""
}

func pgDirVersion(d string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
	return n
}

// Postgres is one running PostgreSQL server.
type Postgres struct {
	Host string // 127.0.0.1
	Port int
	Dir  string // data directory (and the Unix socket's)
	Bin  string // the server's bin directory (psql is there too)
	cmd  *exec.Cmd
	done chan struct{}
}

// Addr is host:port.
func (p *Postgres) Addr() string { return net.JoinHostPort(p.Host, strconv.Itoa(p.Port)) }

// URL is a postgres:// URL for the superuser postgres on database db
// (trust authentication: no password).
func (p *Postgres) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", p.Addr(), db)
}

// DSN is the libpq key=value string of URL, for psql and psycopg2.
func (p *Postgres) DSN(db string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", p.Host, p.Port, db)
}

var (
	once    sync.Once
	shared  *Postgres
	initErr error
	missing string
	inMain  bool
)

// Main runs the package's tests and stops the shared server after them:
// call it from TestMain (os.Exit(dbtest.Main(m))).
func Main(m interface{ Run() int }) int { return Wrap(m).Run() }

// Wrap is m whose Run also stops the shared server after the tests, for a
// TestMain that hands m to another helper's Main (zktest.Main(dbtest.Wrap(m))).
func Wrap(m interface{ Run() int }) interface{ Run() int } { return runner{m} }

type runner struct{ m interface{ Run() int } }

func (r runner) Run() int {
	inMain = true
	code := r.m.Run()
	if shared != nil {
		shared.Stop()
	}
	StopSharedMariaDB()
	return code
}

// Server is the test binary's PostgreSQL server, started on first use.
func Server(t testing.TB) *Postgres {
	t.Helper()
	if !inMain {
		t.Fatal("dbtest.Server needs TestMain to call dbtest.Main (it stops the server)")
	}
	once.Do(func() {
		bin := PGBin()
		if bin == "" {
			missing = "PostgreSQL's initdb not found in /usr/lib/postgresql/*/bin"
			return
		}
		for attempt := 0; attempt < 3; attempt++ { // a port taken between choosing and binding
			if shared, initErr = start(bin); initErr == nil {
				return
			}
		}
	})
	if missing != "" {
		Unavailable(t, missing)
	}
	if initErr != nil {
		t.Fatalf("start PostgreSQL: %v", initErr)
	}
	return shared
}

// asPostgres makes cmd run as the postgres user when the tests run as
// root (the server refuses root).
func asPostgres(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root, and no postgres user to run the server as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	cmd.Env = append(os.Environ(), "HOME="+u.HomeDir)
	return nil
}

func start(bin string) (*Postgres, error) {
	dir, err := os.MkdirTemp("", "zkscope-pg-")
	if err != nil {
		return nil, err
	}
	p := &Postgres{Host: "127.0.0.1", Dir: dir, Bin: bin, done: make(chan struct{})}
	if err := p.initdb(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if p.Port, err = freePort(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// max_locks_per_transaction: room for 10,000 advisory locks (the
	// benchmark's); fsync off: a test server's data is thrown away.
	p.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(dir, "data"), "-k", dir,
		"-p", strconv.Itoa(p.Port), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
		"-c", "max_locks_per_transaction=512", "-c", "max_connections=60", "-c", "logging_collector=off")
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := asPostgres(p.cmd); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	go func() { p.cmd.Wait(); logf.Close(); close(p.done) }()
	if err := p.waitReady(60 * time.Second); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

func (p *Postgres) initdb() error {
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("running as root, and no postgres user to run initdb as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(p.Dir, uid, gid); err != nil {
			return err
		}
	}
	cmd := exec.Command(filepath.Join(p.Bin, "initdb"), "-D", filepath.Join(p.Dir, "data"), "-U", "postgres",
		"--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C")
	if err := asPostgres(cmd); err != nil {
		return err
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	return nil
}

// waitReady polls pg_isready until the server accepts connections.
func (p *Postgres) waitReady(limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var out []byte
	for ctx.Err() == nil {
		select {
		case <-p.done:
			log, _ := os.ReadFile(filepath.Join(p.Dir, "postgres.log"))
			return fmt.Errorf("postgres on %s exited: %s", p.Addr(), log)
		default:
		}
		var err error
		out, err = exec.CommandContext(ctx, filepath.Join(p.Bin, "pg_isready"), "-h", p.Host, "-p", strconv.Itoa(p.Port), "-t", "5").CombinedOutput()
		if err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(p.Dir, "postgres.log"))
	return fmt.Errorf("postgres on %s not ready after %v: %s\n%s", p.Addr(), limit, out, log)
}

// Stop stops the server (fast shutdown, then kill) and removes its
// directory.
func (p *Postgres) Stop() {
	select {
	case <-p.done:
	default:
		p.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
	os.RemoveAll(p.Dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var errNoPsql = errors.New("psql not found")

// databases numbers the databases NewDatabase creates on the shared
// server (one per test binary, which -count=N runs again).
var databases atomic.Int64

// NewDatabase creates a database named prefix and a number no other call
// in this test binary gives (a test run again by -count=N gets a new
// one) and returns its name.
func (p *Postgres) NewDatabase(t testing.TB, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%d", prefix, databases.Add(1))
	if _, err := p.Psql(context.Background(), "postgres", "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return name
}

// Psql runs psql with sql on database db and returns its output (-At:
// unaligned, tuples only).
func (p *Postgres) Psql(ctx context.Context, db, sql string) (string, error) {
	bin := filepath.Join(p.Bin, "psql")
	if _, err := os.Stat(bin); err != nil {
		return "", errNoPsql
	}
	out, err := exec.CommandContext(ctx, bin, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", p.DSN(db), "-c", sql).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("psql -c %q: %v: %s", sql, err, out)
	}
	return string(out), nil
}
