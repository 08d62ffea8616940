// Package audit is the audit log: one JSON line per change zkscope made
// or refused ([Append], [Record]; results [OK], [Failed], [Refused]),
// where it lives ([LogPath]), the refusals a caller decides ([Refuse],
// [RefuseReadOnly]), the node changes the terminal UI makes, audited
// (mutations.go: [Mutations]), and who zkscope acts as ([WhoAmI]).
//
// It writes the log and, for mutations, to ZooKeeper through zkview; it
// imports nothing of the other lock packages but the recipe model, nor
// ui or cmd.
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// Audit results.
const (
	OK      = "ok"      // the change was made
	Failed  = "failed"  // the server refused it or it could not be made
	Refused = "refused" // zkscope refused it (read-only mode, or a [*lockops.Refusal])
)

// Entry is one line of the audit log. Time, User, Host, Context and
// Servers are filled in by [Append] when empty.
type Entry struct {
	Time      time.Time `json:"time"`
	User      string    `json:"user"`
	Host      string    `json:"host"`
	Context   string    `json:"context"`
	Servers   []string  `json:"servers"`
	Operation string    `json:"operation"`
	Path      string    `json:"path"`
	// Version is the znode version the operation was conditioned on, or the
	// one it produced (nil when none applies).
	Version *int32 `json:"version"`
	// Session is the ZooKeeper session concerned, "0x…" ("" when none): ours
	// for take/release, the holder's for revoke/force-delete.
	Session string `json:"session"`
	// Token is a Redis lock's token concerned (ours for take/release, the
	// holder's for force-delete); absent for ZooKeeper.
	Token  string `json:"token,omitempty"`
	Result string `json:"result"`
	Error  string `json:"error"`
}

// LogPath is where the audit log lives:
// $XDG_STATE_HOME/zkscope/audit.log, by default ~/.local/state/zkscope/audit.log.
func LogPath() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the audit log: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "zkscope", "audit.log"), nil
}

var auditMu sync.Mutex

// Append appends e to the audit log as one JSON line (file mode 0600 in a
// 0700 directory, O_APPEND so concurrent zkscope processes never interleave
// within a line). c supplies the context name and servers; it may be nil.
func Append(c *zkview.Client, e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if e.User == "" || e.Host == "" {
		u, h := WhoAmI()
		if e.User == "" {
			e.User = u
		}
		if e.Host == "" {
			e.Host = h
		}
	}
	if c != nil {
		cfg := c.Config()
		if e.Context == "" {
			e.Context = cfg.Context
		}
		if e.Servers == nil {
			e.Servers = c.Servers()
		}
	}
	if e.Servers == nil {
		e.Servers = []string{}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode audit entry: %w", err)
	}
	line = append(line, '\n')
	p, err := LogPath()
	if err != nil {
		return err
	}
	auditMu.Lock()
	defer auditMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("create audit log directory: %w", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open audit log: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("write audit log %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write audit log %s: %w", p, err)
	}
	return nil
}

// auditResult turns an operation's error into an entry's Result and Error.
func auditResult(e *Entry, err error) {
	switch {
	case err == nil:
		e.Result = OK
	case errors.Is(err, zkview.ErrReadOnly) || lockops.IsRefusal(err):
		e.Result, e.Error = Refused, err.Error()
	default:
		e.Result, e.Error = Failed, err.Error()
	}
}

// Record writes an audit entry for an operation and its outcome. An audit
// failure never hides the operation's own result; it is reported through
// [Errors] so the CLI and UI can show it.
func Record(c *zkview.Client, op, path string, version *int32, session int64, err error) {
	e := Entry{Operation: op, Path: path, Version: version}
	if session != 0 {
		e.Session = lockops.FormatSession(session)
	}
	RecordEntry(c, e, err)
}

// RecordEntry writes e with err's outcome ([Record]; c may be nil).
func RecordEntry(c *zkview.Client, e Entry, err error) {
	auditResult(&e, err)
	if aerr := Append(c, e); aerr != nil {
		select {
		case auditErrors <- aerr:
		default:
		}
	}
}

var auditErrors = make(chan error, 16)

// Errors delivers failures to write the audit log (disk full, no home
// directory, ...) so they can be shown; the operations themselves go on.
func Errors() <-chan error { return auditErrors }

// VersionPtr is v as an entry's Version.
func VersionPtr(v int32) *int32 { return &v }

var (
	whoOnce          sync.Once
	whoUser, whoHost string
)

// WhoAmI returns the local user and host names, for the audit log and lock
// node data.
func WhoAmI() (string, string) {
	whoOnce.Do(func() {
		whoUser = os.Getenv("USER")
		if u, err := user.Current(); err == nil && u.Username != "" {
			whoUser = u.Username
		}
		if whoUser == "" {
			whoUser = fmt.Sprintf("uid%d", os.Getuid())
		}
		whoHost, _ = os.Hostname()
		if whoHost == "" {
			whoHost = "localhost"
		}
	})
	return whoUser, whoHost
}
