package main

// The lock, evict and revoke subcommands: flag parsing and wiring only; the
// logic lives in lockops.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/lockrun"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

func newLockCmd() *cobra.Command {
	var (
		recipe, mode, note, killSignal string
		timeout, killGrace             time.Duration
		noWait, revocable, forceRecipe bool
	)
	cmd := &cobra.Command{
		Use:   "lock PATH [-- CMD ARGS...]",
		Short: "Take a lock by hand, or run a command while holding it",
		Long: `Take the lock at PATH in a real library's znode format (Curator, kazoo or
go-zookeeper) and wait in its queue exactly as that library would.

zkscope never guesses the library. The contenders already in PATH decide;
with none, the locks next to PATH (its siblings' contenders) decide when they
all use one library; else the context's default_recipe; else zkscope refuses
(exit 2) and asks for --recipe. A --recipe or --mode that contradicts the
contenders already there is refused (exit 2) unless --force-recipe is given:
a node in another library's format does not exclude them.

--recipe ephemeral takes a plain ephemeral lock: PATH itself is created as an
ephemeral node; while another session holds it, zkscope watches it with
exists and tries again once it is deleted, as hand-written locks do. An
ephemeral node already at PATH means that recipe (another --recipe is
refused); a persistent PATH is refused.

Without CMD, zkscope holds the lock until Ctrl-C (or SIGTERM) and then
releases it. With CMD, it runs CMD once the lock is held (stdin, stdout and
stderr passed through, in its own process group), releases the lock when CMD
exits and exits with CMD's status.

CMD has stopped before the servers could expire the session: zkscope tracks
the last moment the servers answered it, and without an answer CMD gets
--kill-signal at (last answer + session timeout - margin - --kill-grace) and
SIGKILL at (last answer + session timeout - margin), from a watchdog process
that acts even if zkscope itself is frozen. A --kill-grace longer than half
the session timeout (less the margin) is shortened, and zkscope says so. A
failover to another member within that time does not stop CMD.

CMD's environment tells it the lock it runs under, to fence its writes:
ZKSCOPE_LOCK_PATH, ZKSCOPE_LOCK_NODE, ZKSCOPE_LOCK_SESSION (0x...) and
ZKSCOPE_LOCK_FENCE (our node's creation zxid: a later holder of any lock in
the ensemble gets a larger one).

If the lock is LOST while held (session expired, no answer until the
deadline, or the node force-deleted), CMD is stopped the same way and zkscope
exits 75. When the lock cannot be taken (--timeout expired, --no-wait and
busy) it exits 1 and leaves no node; when it refuses to (unclear library,
contradicting contenders) it exits 2 and creates nothing.

On Redis servers (--server redis://…, several for a Redlock) PATH is a key:
zkscope sets it with SET NX PX and a random token, extends it at a third of
--ttl while held and treats a failed extension as LOST (see README, "Redis
locks", for what Redis locks cannot promise).`,
		Example: `  zkscope lock /app/locks/deploy -- ./deploy.sh
  zkscope lock /app/locks/orders --mode write --timeout 30s -- ./migrate.sh
  zkscope lock /app/locks/batch --no-wait --note "manual run by $USER"
  zkscope lock /app/locks/new-job --recipe kazoo -- ./job.sh   # a lock nobody has taken yet
  zkscope lock /app/maintenance --recipe ephemeral -- ./upgrade.sh   # a hand-written create-or-watch lock`,
		Args:              cobra.MatchAll(cobra.MinimumNArgs(1), lockPathArgs),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer reportAuditErrors()
			lockPath, command := args[0], args[1:]
			if timeout < 0 {
				return usagef("--timeout %s: must be positive (0: wait forever)", timeout)
			}
			if killGrace < 0 {
				return usagef("--kill-grace %s: must be positive", killGrace)
			}
			if dash := cmd.ArgsLenAtDash(); dash >= 0 && dash != 1 {
				return usagef("usage: zkscope lock PATH [-- CMD ARGS...] (one PATH before --)")
			} else if dash < 0 && len(args) > 1 {
				return usagef("put the command after --: zkscope lock %s -- %s", lockPath, args[1])
			}
			if handled, err := runRedisLock(cmd, lockPath, command); handled || err != nil { // main_redis_lock.go
				return err
			}
			var lib *lockops.Library
			if recipe != "" && recipe != "auto" {
				l, err := lockops.ParseLibrary(recipe)
				if err != nil {
					return usage(err)
				}
				lib = l
			}
			m, err := lockops.ParseMode(mode)
			if err != nil {
				return usage(err)
			}
			sig, err := lockrun.ParseSignal(killSignal)
			if err != nil {
				return usage(err)
			}
			if lib.Takes() && !lib.TakesMode(m) {
				return usagef("%s locks are exclusive only (asked for --mode %s): pass --mode exclusive", lib, m)
			}
			if forceRecipe && lib == nil {
				return usagef("--force-recipe needs --recipe (the library to take the lock in)")
			}
			if revocable && lib != nil && lib != lockops.Curator {
				return usagef("--revocable honours Curator's revocation requests: it does not go with --recipe %s", lib.Name)
			}
			opts := take.Options{Library: lib, Mode: m, ForceRecipe: forceRecipe, Note: note}
			switch {
			case noWait && cmd.Flags().Changed("timeout"):
				return usagef("--no-wait and --timeout exclude each other")
			case noWait:
				opts.Wait = hold.WaitNone
			case timeout > 0:
				opts.Wait, opts.Timeout = hold.WaitTimeout, timeout
			}
			signals := make(chan os.Signal, 4)
			signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			defer signal.Stop(signals)
			ctx := context.Background()
			c, err := connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			code, err := lockrun.Run(ctx, c, lockrun.LockCommand{
				Path: lockPath, Take: opts, Args: command,
				KillSignal: sig, KillGrace: killGrace, Revocable: revocable,
				Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
				Messages: os.Stderr, Signals: signals,
			})
			if errors.Is(err, zkview.ErrReadOnly) {
				return err // refused: one line, exit 2
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "zkscope:", printable.String(err.Error()))
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&recipe, "recipe", "", "lock library format: curator, kazoo, go-zk or ephemeral (a plain ephemeral node at PATH; default: the contenders there, else the locks next to it, else the context's default_recipe)")
	f.BoolVar(&forceRecipe, "force-recipe", false, "take in --recipe/--mode even when the contenders already there use another library or lock type (breaks exclusion with them)")
	f.StringVar(&mode, "mode", "exclusive", "exclusive, read or write (read/write locks: Curator InterProcessReadWriteLock, kazoo ReadLock/WriteLock)")
	f.DurationVar(&timeout, "timeout", 0, "give up waiting after this long (0: wait forever)")
	f.BoolVar(&noWait, "no-wait", false, "fail at once when someone else holds the lock")
	f.StringVar(&note, "note", "", "text stored in the lock node with user@host, shown to other operators")
	f.StringVar(&killSignal, "kill-signal", "TERM", "signal sent to CMD's process group when the lock is lost")
	f.DurationVar(&killGrace, "kill-grace", 0, "time CMD gets after --kill-signal before SIGKILL (default: a fifth of the session timeout, at most 10s; at most half the session timeout)")
	f.BoolVar(&revocable, "revocable", false, "honour Curator revocation requests (`zkscope revoke`): stop CMD and release")
	redisLockFlags(f)
	return cmd
}

func newEvictCmd() *cobra.Command {
	var (
		expectSession, expectCzxid string
		session, under             string
		yes, anyNode, forceLeader  bool
	)
	cmd := &cobra.Command{
		Use:   "evict NODE | evict --session 0x… [--under PATH]",
		Short: "Force-delete a lock node (a stuck holder or waiter), after confirmation",
		Long: `Force-delete one lock node. zkscope first shows whose node it is (session,
client, data, how long it has existed) and what happens next (which waiter gets
the lock), then asks you to type the node's sequence number to confirm.

The node is deleted only if it still belongs to the session shown, has the same
creation zxid (a re-created node is never deleted) and the same data version;
otherwise nothing is deleted and zkscope says what changed.

The old holder is NOT told: if it is still running it goes on as if it held
the lock. Prefer stopping it, or 'zkscope revoke' for revocable Curator locks.

zkscope refuses (exit 2, nothing deleted) a node that is no participant of a
lock it recognises, unless --any-node is given. It asks for the sequence
number only on a terminal: piped input never confirms, so scripts pass --yes
together with --expect-session (as printed by 'zkscope locks').

--session 0x… deletes every lock node of one session below --under (default
/): a client gone behind a NAT whose session the servers keep alive. zkscope
lists the nodes (lock, holding or waiting, since when), asks you to type the
session id, then deletes each with its own checks (session, creation zxid,
version) and an audit line, waiters first. It refuses (exit 2) zkscope's own
session and --read-only; a session with no lock node below the path is
nothing to do (exit 0). Piped input never confirms: pass --yes.

The leader node of a single-node lock or election (a plain ephemeral lock,
Kafka's /controller, HDFS's ActiveStandbyElectorLock, HBase's master, Solr's
first overseer candidate) is confirmed the same way, and zkscope says what
the system does next (a new election). For Kafka, HDFS, HBase and Solr it
also needs --force-leader: without it zkscope refuses (exit 2); with
--session it refuses that node and deletes the session's others.

On Redis servers NODE is a key: zkscope shows its token and deletes it only
while it still holds that token (--token T --yes for scripts).`,
		Example: `  zkscope evict /app/locks/deploy/_c_0f3e…-lock-0000000007
  zkscope evict /app/locks/deploy/_c_0f3e…-lock-0000000007 --expect-session 0x100000872e90004 --yes
  zkscope evict --session 0x100000872e90004 --under /app/locks`,
		Args: func(cmd *cobra.Command, args []string) error {
			if session != "" {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.MatchAll(cobra.ExactArgs(1), lockPathArgs)(cmd, args)
		},
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer reportAuditErrors()
			if handled, err := runRedisEvict(cmd, args); handled || err != nil { // main_redis_lock.go
				return err
			}
			if session != "" {
				return evictSession(cmd, session, under, yes, forceLeader)
			}
			var wantSession, wantCzxid int64
			var err error
			if expectSession != "" {
				if wantSession, err = parseHexID(expectSession); err != nil {
					return usagef("--expect-session: %w", err)
				}
			}
			if expectCzxid != "" {
				if wantCzxid, err = parseHexID(expectCzxid); err != nil {
					return usagef("--expect-czxid: %w", err)
				}
			}
			if yes && expectSession == "" {
				return audit.Refuse(nil, lockops.OpForceDelete, args[0], 0,
					"--yes needs --expect-session (the owner you mean to evict), so a new owner is never deleted by mistake")
			}
			ctx := context.Background()
			c, err := connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			if err := audit.RefuseReadOnly(c, lockops.OpForceDelete, args[0]); err != nil {
				return err // before the preview: nothing to confirm
			}
			opts := evict.Options{AnyNode: anyNode, ForceLeader: forceLeader}
			p, err := evict.PreviewEvict(ctx, c, args[0], opts)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprint(out, evict.FormatPreview(p))
			if expectSession != "" && p.Session != wantSession {
				return fmt.Errorf("nothing deleted: %s now belongs to session %s, not %s", p.Node, lockops.FormatSession(p.Session), lockops.FormatSession(wantSession))
			}
			if wantCzxid != 0 && p.Czxid != wantCzxid {
				return fmt.Errorf("nothing deleted: %s was re-created (czxid 0x%x, expected 0x%x)", p.Node, p.Czxid, wantCzxid)
			}
			if !yes {
				if err := confirmEvict(cmd, c, p); err != nil {
					return err
				}
			}
			if err := evict.Evict(ctx, c, p.Node, p.Expect, opts); err != nil {
				return err
			}
			fmt.Fprintf(out, "deleted %s\n", printable.String(p.Node))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&expectSession, "expect-session", "", "delete only if the node belongs to this session (0x…)")
	f.StringVar(&expectCzxid, "expect-czxid", "", "delete only if the node has this creation zxid (0x…)")
	f.BoolVarP(&yes, "yes", "y", false, "do not ask (needs --expect-session)")
	f.BoolVar(&anyNode, "any-node", false, "delete a node that is no participant of a lock zkscope recognises")
	f.BoolVar(&forceLeader, "force-leader", false, "delete the leader node of a Kafka, HDFS, HBase or Solr election (starts a new election)")
	f.StringVar(&session, "session", "", "delete every lock node of this session (0x…) below --under")
	f.StringVar(&under, "under", "/", "with --session: the path whose locks are scanned")
	redisEvictFlags(f)
	return cmd
}

// evictSession is `zkscope evict --session ID [--under PATH]`: list the
// session's lock nodes, confirm once, delete each.
func evictSession(cmd *cobra.Command, sessionArg, under string, yes, forceLeader bool) error {
	id, err := parseHexID(sessionArg)
	if err != nil {
		return usagef("--session: %w", err)
	}
	if !strings.HasPrefix(under, "/") {
		return usagef("--under %q: give an absolute path", under)
	}
	ctx := context.Background()
	c, err := connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	plan, err := evict.PlanSession(ctx, c, id, under) // refuses --read-only first
	if err != nil {
		return err
	}
	plan.ForceLeader = forceLeader
	out := cmd.OutOrStdout()
	if err := plan.Write(out, time.Now()); err != nil || len(plan.Nodes) == 0 {
		return err
	}
	if !yes {
		if err := confirmEvictSession(cmd, c, plan); err != nil {
			return err
		}
	}
	return evict.EvictSession(ctx, c, plan, func(n evict.SessionEvictNode, err error) {
		if err != nil {
			fmt.Fprintf(out, "not deleted %s: %s\n", printable.String(n.Node), printable.String(err.Error()))
			return
		}
		fmt.Fprintf(out, "deleted %s\n", printable.String(n.Node))
	})
}

// confirmEvictSession asks the operator at the terminal to type the
// session id. Without a terminal on stdin nothing can confirm: refused.
func confirmEvictSession(cmd *cobra.Command, c *zkview.Client, plan *evict.SessionEviction) error {
	sid := lockops.FormatSession(plan.Session)
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !term.IsTerminal(in.Fd()) {
		return audit.Refuse(c, lockops.OpForceDelete, plan.Under, plan.Session,
			"stdin is not a terminal, so nobody can confirm; pass --yes to delete the session's lock nodes without asking")
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nType the session id (%s) to delete these %d node(s): ", sid, len(plan.Nodes))
	var typed string
	fmt.Fscanln(in, &typed)
	if typed != sid {
		return audit.Refuse(c, lockops.OpForceDelete, plan.Under, plan.Session, "not confirmed (the session id typed was not "+sid+"): nothing deleted")
	}
	return nil
}

// confirmEvict asks the operator at the terminal to type p's sequence
// number. Without a terminal on stdin nothing can confirm: refused.
func confirmEvict(cmd *cobra.Command, c *zkview.Client, p *evict.Preview) error {
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !term.IsTerminal(in.Fd()) {
		return audit.Refuse(c, lockops.OpForceDelete, p.Node, p.Session, fmt.Sprintf(
			"stdin is not a terminal, so nobody can confirm; pass --yes --expect-session %s to delete it without asking", lockops.FormatSession(p.Session)))
	}
	what := "sequence number" // a single-node lock's node has none: its name
	if p.SequenceSuffix() == path.Base(p.Node) {
		what = "name"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nType the node's %s (%s) to delete it: ", what, printable.String(p.SequenceSuffix()))
	var typed string
	fmt.Fscanln(in, &typed)
	if typed != p.SequenceSuffix() {
		return audit.Refuse(c, lockops.OpForceDelete, p.Node, p.Session, "not confirmed (the "+what+" typed was not "+p.SequenceSuffix()+"): nothing deleted")
	}
	return nil
}

func newRevokeCmd() *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "revoke NODE",
		Short: "Ask a lock's holder to release it (Curator revocation: writes __REVOKE__)",
		Long: `Ask the holder of a lock node to let go, the way Curator's Revoker does: write
"__REVOKE__" as the node's data and wait for the node to be deleted.

Only holders that made their lock revocable react (Curator's makeRevocable,
'zkscope lock --revocable'). Exits 0 when the node went away within --wait,
1 otherwise (the holder keeps the lock; 'zkscope evict' force-deletes).

zkscope writes only to the holding node of a Curator InterProcessMutex or
InterProcessReadWriteLock, the recipes that can be revoked, conditioned on the
version it read. Anything else (a plain node, a waiter, a persistent node, a
kazoo, go-zookeeper or ZooKeeper recipe lock, a Curator semaphore or leader
latch) is refused with exit status 2 and left unchanged.`,
		Example:           `  zkscope revoke /app/locks/deploy/_c_0f3e…-lock-0000000007 --wait 30s`,
		Args:              cobra.MatchAll(cobra.ExactArgs(1), lockPathArgs),
		ValidArgsFunction: completePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer reportAuditErrors()
			if handled, err := runRedisRevoke(args); handled || err != nil { // main_redis_lock.go
				return err
			}
			if wait < 0 {
				return usagef("--wait %s: must be positive", wait)
			}
			ctx := context.Background()
			c, err := connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			res, err := evict.Revoke(ctx, c, args[0], wait)
			if err != nil {
				return err
			}
			if !res.Released {
				return fmt.Errorf("asked session %s to release %s, but it still holds it after %s (is the lock revocable?)", lockops.FormatSession(res.Session), res.Node, wait)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "session %s released %s\n", lockops.FormatSession(res.Session), printable.String(res.Node))
			return nil
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", 10*time.Second, "how long to wait for the holder to let go")
	return cmd
}

// parseHexID reads a session id or zxid as ZooKeeper prints them ("0x…"),
// or in decimal.
func parseHexID(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		u, err := strconv.ParseUint(h, 16, 64)
		return int64(u), err
	}
	return strconv.ParseInt(s, 10, 64)
}

// reportAuditErrors prints every failure to write the audit log: a change
// that was made but not audited must not go unnoticed.
func reportAuditErrors() {
	for {
		select {
		case err := <-audit.Errors():
			fmt.Fprintln(os.Stderr, "zkscope: WARNING: the audit log was not written:", err)
		default:
			return
		}
	}
}
