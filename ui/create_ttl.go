package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/zkview"
)

// maxTTL is the longest TTL ZooKeeper accepts (it keeps it in 40 bits of
// milliseconds).
const maxTTL = time.Duration(1<<40-1) * time.Millisecond

// parseTTL reads the create dialog's ttl field (ok false when it is no
// duration ZooKeeper accepts).
func parseTTL(s string) (time.Duration, bool) {
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Millisecond || d > maxTTL {
		return 0, false
	}
	return d, true
}

// createTTLCmd makes a TTL node. audit.Mutations has no TTL create, so
// this calls the connection directly, refusing in read-only mode and
// writing the audit log entry itself.
func createTTLCmd(c *zkview.Client, p string, data []byte, flags int32, ttl time.Duration) tea.Cmd {
	return func() tea.Msg {
		if c == nil {
			return mutationMsg{op: "create", path: p, err: errors.New("not connected")}
		}
		recordAudit := func(path string, err error) {
			e := audit.Entry{Operation: lockops.OpCreate, Path: path, Result: audit.OK}
			if err != nil {
				e.Result, e.Error = audit.Failed, err.Error()
			} else {
				v := int32(0)
				e.Version = &v
			}
			audit.Append(c, e) // a failure to log never hides the result
		}
		if c.Config().ReadOnly {
			err := fmt.Errorf("create %s: %w", p, zkview.ErrReadOnly)
			e := audit.Entry{Operation: lockops.OpCreate, Path: p, Result: audit.Refused, Error: err.Error()}
			audit.Append(c, e)
			return mutationMsg{op: "create", path: p, err: err}
		}
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		type reply struct {
			path string
			err  error
		}
		ch := make(chan reply, 1)
		go func() {
			created, err := c.Conn().CreateTTL(c.Abs(p), data, flags, zk.WorldACL(zk.PermAll), ttl)
			ch <- reply{created, err}
		}()
		var r reply
		select {
		case r = <-ch:
		case <-ctx.Done():
			r.err = ctx.Err()
		}
		if r.err != nil {
			err := fmt.Errorf("create %s: %w", p, r.err)
			if errors.Is(r.err, zk.ErrUnknown) {
				err = fmt.Errorf("create %s: %w (the server refuses TTL nodes unless every member runs with zookeeper.extendedTypesEnabled=true)", p, r.err)
			}
			recordAudit(p, err)
			return mutationMsg{op: "create", path: p, err: err}
		}
		created := c.Rel(r.path)
		recordAudit(created, nil)
		return mutationMsg{op: "create", path: created, flags: flags, ttl: ttl}
	}
}
