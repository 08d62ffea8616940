package lock

// lock and evict against a database server (the target's postgres:// URL):
// holding is lockops/dblock's on a connection of its own, ending a
// holder's session dblock's after showing it.

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/dblock"
	"github.com/zkscope/zkscope/lockops/lockrun"
	"github.com/zkscope/zkscope/printable"
)

// dbShared is --mode for a database lock: exclusive (default) or shared
// (read is taken as shared).
func dbShared(mode string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case "", "exclusive", "write":
		return false, nil
	case "shared", "read":
		return true, nil
	}
	return false, cmdutil.Usagef("--mode %q: a database lock is exclusive or shared", mode)
}

// runDBLock is `zkscope lock KEY [-- CMD]` on a database server.
func runDBLock(f *cmdutil.Factory, d config.DB, o lockOptions) error {
	for _, n := range []string{"recipe", "force-recipe", "revocable", "ttl", "note"} {
		if o.flags.Changed(n) {
			return cmdutil.Usagef("--%s is for ZooKeeper or Redis locks; a database lock is held by its session (key, --mode exclusive or shared): leave it out", n)
		}
	}
	if _, _, _, err := dbview.ParsePGKey(o.Path); err != nil && d.Config.Kind == dbview.KindPostgres {
		return cmdutil.Usage(err)
	}
	shared, err := dbShared(o.Mode)
	if err != nil {
		return err
	}
	if shared && d.Config.Kind == dbview.KindMySQL {
		return cmdutil.Usagef("--mode %s: GET_LOCK locks are exclusive only (a shared lock is PostgreSQL's)", o.Mode)
	}
	to := dblock.TakeOptions{Shared: shared, ReadOnly: d.ReadOnly, Context: d.Context}
	if to.Wait, to.Timeout, err = o.wait(); err != nil {
		return err
	}
	sig, err := lockrun.ParseSignal(o.KillSignal)
	if err != nil {
		return cmdutil.Usage(err)
	}
	_, c, _, err := f.OpenDB(context.Background())
	if err != nil {
		return err
	}
	defer c.Close()
	lc, stop := lockCommand(o, sig)
	defer stop()
	code, err := lockrun.RunDB(context.Background(), c, lc, to)
	return lockExit(code, err)
}

// runDBEvict is `zkscope evict KEY [--expect-session PID] [--yes]` on a
// database server: show the lock's holders and what their sessions do,
// confirm, end the one chosen only while it still holds the lock.
func runDBEvict(f *cmdutil.Factory, d config.DB, o evictOptions, args []string) error {
	for _, n := range []string{"session", "under", "expect-czxid", "any-node", "force-leader", "token", "any-key"} {
		if o.flags.Changed(n) {
			return cmdutil.Usagef("--%s is for ZooKeeper or Redis locks; on a database: zkscope evict KEY [--expect-session PID] [--yes]", n)
		}
	}
	if len(args) != 1 {
		return cmdutil.Usagef("usage: zkscope evict KEY [--expect-session PID] [--yes]")
	}
	var pid int64
	if o.ExpectSession != "" {
		var err error
		if pid, err = strconv.ParseInt(o.ExpectSession, 10, 64); err != nil || pid <= 0 {
			return cmdutil.Usagef("--expect-session %q: a database session is its backend's pid (a number, as `zkscope locks` shows it)", o.ExpectSession)
		}
	}
	ctx := context.Background()
	_, c, _, err := f.OpenDB(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	key := args[0]
	opts := dblock.EvictOptions{ReadOnly: d.ReadOnly, Context: d.Context}
	if o.Yes && pid == 0 {
		return dblock.Refuse(c, d.Context, dblock.OpTerminate, key,
			"--yes needs --expect-session PID (the holder you mean to end, as `zkscope locks` shows it), so that no other session is ended by mistake")
	}
	if d.ReadOnly {
		return dblock.Evict(ctx, c, &dblock.EvictPreview{Path: key}, lockops.Participant{Session: pid}, opts) // refused and audited
	}
	p, err := dblock.PreviewEvict(ctx, c, key)
	if err != nil {
		return err
	}
	fmt.Fprint(o.Out, dblock.FormatEvictPreview(p))
	h, why := p.Holder(pid)
	if why != "" {
		return dblock.Refuse(c, d.Context, dblock.OpTerminate, p.Path, why)
	}
	if !o.Yes {
		if err := confirmDBEvict(o.In, o.Out, c, d, p, h); err != nil {
			return err
		}
	}
	if err := dblock.Evict(ctx, c, p, h, opts); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "ended backend %d, which held %s\n", h.Session, printable.String(p.Path))
	return nil
}

// confirmDBEvict asks the operator at the terminal to type the holder's
// pid. Without a terminal on stdin nothing can confirm: refused.
func confirmDBEvict(stdin io.Reader, out io.Writer, c *dbview.Client, d config.DB, p *dblock.EvictPreview, h lockops.Participant) error {
	in, ok := cmdutil.ReaderIsTerminal(stdin)
	want := strconv.FormatInt(h.Session, 10)
	if !ok {
		return dblock.Refuse(c, d.Context, dblock.OpTerminate, p.Path, fmt.Sprintf(
			"stdin is not a terminal, so nobody can confirm; pass --yes --expect-session %s to end it without asking", want))
	}
	fmt.Fprintf(out, "\nType the holder's %s (%s) to end its session (%s): ", dblock.SessionWord(p.Queue.Kind), want, dblock.EndWord(p.Queue.Kind))
	var typed string
	fmt.Fscanln(in, &typed)
	if typed != want {
		return dblock.Refuse(c, d.Context, dblock.OpTerminate, p.Path, "not confirmed (what was typed was not "+want+"): nothing ended")
	}
	return nil
}
