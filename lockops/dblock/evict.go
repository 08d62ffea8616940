package dblock

// Ending a database lock's holder: the lock's holders are shown with what
// their sessions are doing, and the one chosen is ended
// (pg_terminate_backend) only while it still holds that lock and is the
// same session (its start time checked, not only its id).

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// OpTerminate is the audit log's operation of a holder's session ended.
const OpTerminate = "terminate-session"

// EvictPreview is a lock as read before ending one of its holders.
type EvictPreview struct {
	Path    string // database/key
	Queue   lockops.Queue
	Holders []lockops.Participant
	At      time.Time
}

// PreviewEvict reads the lock key: "42" or "1/2" in the database connected
// to, or "db/42" in another. A lock nobody holds or awaits is an error.
func PreviewEvict(ctx context.Context, c *dbview.Client, key string) (*EvictPreview, error) {
	snap, err := c.Locks(ctx)
	if err != nil {
		return nil, err
	}
	want := LockPath(c.Config().Database, key)
	for _, q := range Locks(snap, DiagnoseOptions{}) {
		if q.Path == want || q.Path == key {
			return &EvictPreview{Path: q.Path, Queue: q, Holders: q.Holders(), At: snap.At}, nil
		}
	}
	return nil, fmt.Errorf("no session holds or awaits the lock %s on %s", key, c.Server())
}

// Holder is the holder pid among p's (0: the only one), or a one-line
// reason why it cannot be chosen.
func (p *EvictPreview) Holder(pid int64) (lockops.Participant, string) {
	if pid == 0 {
		switch len(p.Holders) {
		case 0:
			return lockops.Participant{}, "nobody holds " + p.Path + " now (only waiters)"
		case 1:
			return p.Holders[0], ""
		}
		return lockops.Participant{}, fmt.Sprintf("%d sessions hold %s (shared): choose one with --expect-session PID", len(p.Holders), p.Path)
	}
	for _, h := range p.Holders {
		if h.Session == pid {
			return h, ""
		}
	}
	return lockops.Participant{}, fmt.Sprintf("backend %d does not hold %s (its holders: %s); nothing ended", pid, p.Path, pids(p.Holders))
}

func pids(ps []lockops.Participant) string {
	if len(ps) == 0 {
		return "none"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprint(p.Session)
	}
	return strings.Join(s, ", ")
}

// FormatEvictPreview shows what each holder's session is doing, escaped.
func FormatEvictPreview(p *EvictPreview) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  %d holding, %d waiting\n", printable.String(p.Path), p.Queue.Kind, len(p.Holders), len(p.Queue.Waiters()))
	for _, h := range p.Holders {
		d := h.DB
		if d.NoBackend {
			fmt.Fprintf(&b, "  holder %d: no session (a prepared transaction, or gone)\n", h.Session)
			continue
		}
		fmt.Fprintf(&b, "  holder %s %d (%s)\n", SessionWord(p.Queue.Kind), h.Session, h.Mode)
		field := func(k, v string) {
			if v != "" {
				fmt.Fprintf(&b, "    %-13s %s\n", k+":", printable.String(v))
			}
		}
		field("user", d.User)
		field("application", d.Application)
		field("client", h.Client)
		field("state", d.State)
		field("level", d.Level)
		field("query", strings.Join(strings.Fields(d.Query), " "))
		for _, t := range []struct {
			k string
			v time.Time
		}{{"session start", d.BackendStart}, {"xact start", d.XactStart}, {"state since", d.StateChange}} {
			if !t.v.IsZero() {
				fmt.Fprintf(&b, "    %-13s %s (%s ago)\n", t.k+":", t.v.Format(time.RFC3339), lockops.FormatAge(p.At.Sub(t.v)))
			}
		}
	}
	return b.String()
}

// EvictOptions configure [Evict].
type EvictOptions struct {
	ReadOnly bool
	Context  string
}

// Evict ends holder h's session (as [EvictPreview.Holder] chose it) while
// it still holds the lock and is the session shown; a refusal otherwise.
// Audited, refusals too.
func Evict(ctx context.Context, c *dbview.Client, p *EvictPreview, h lockops.Participant, o EvictOptions) error {
	a := dbAudit{server: c.Server(), context: o.Context, word: SessionWord(kindOf(c))}
	if o.ReadOnly {
		err := fmt.Errorf("end the session holding %s: %w", p.Path, zkview.ErrReadOnly)
		a.record(OpTerminate, p.Path, h.Session, err)
		return err
	}
	if h.DB == nil || h.DB.NoBackend {
		err := lockops.Refusef(OpTerminate, p.Path, "backend %d has no session to end (a prepared transaction ends with COMMIT PREPARED or ROLLBACK PREPARED)", h.Session)
		a.record(OpTerminate, p.Path, h.Session, err)
		return err
	}
	ended, err := c.Terminate(ctx, h.Session, dbview.TerminateIf{Key: h.Node, Database: h.DB.Database, BackendStart: h.DB.BackendStart})
	if err == nil && !ended {
		err = lockops.Refusef(OpTerminate, p.Path, "nothing ended: backend %d no longer holds %s, or is another session now; look again with `zkscope locks %s`", h.Session, p.Path, p.Path)
	}
	a.record(OpTerminate, p.Path, h.Session, err)
	return err
}
