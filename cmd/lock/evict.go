package lock

// evict: force-delete a lock node (or every lock node of one session)
// after showing whose it is and confirming.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

const evictLong = `Force-delete one lock node. zkscope first shows whose node it is (session,
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
while it still holds that token (--token T --yes for scripts).

On a PostgreSQL server NODE is an advisory lock's key: zkscope shows what
each holder's session is doing, asks for its pid, and ends that session
(pg_terminate_backend) only while it still holds the lock (--expect-session
PID --yes for scripts; a pid that holds nothing of that lock is refused).`

// evictOptions are `zkscope evict`'s.
type evictOptions struct {
	ExpectSession, ExpectCzxid string
	Session, Under             string
	Yes, AnyNode, ForceLeader  bool
	Token                      string // Redis only
	AnyKey                     bool   // Redis only

	In    io.Reader
	Out   io.Writer
	flags *pflag.FlagSet // which were given
}

// NewCmdEvict is `zkscope evict`.
func NewCmdEvict(f *cmdutil.Factory) *cobra.Command {
	var o evictOptions
	cmd := &cobra.Command{
		Use:   "evict NODE | evict --session 0x… [--under PATH]",
		Short: "Force-delete a lock node (a stuck holder or waiter), after confirmation",
		Long:  evictLong,
		Example: `  zkscope evict /app/locks/deploy/_c_0f3e…-lock-0000000007
  zkscope evict /app/locks/deploy/_c_0f3e…-lock-0000000007 --expect-session 0x100000872e90004 --yes
  zkscope evict --session 0x100000872e90004 --under /app/locks
  zkscope -s postgres://app@db1/orders evict 42   # show the holder's session, ask, pg_terminate_backend
  zkscope -s mysql://app@db1:3306/ evict nightly-report   # show the holder's connection, ask, KILL CONNECTION`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.Session != "" {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.MatchAll(cobra.ExactArgs(1), f.LockPathArgs)(cmd, args)
		},
		ValidArgsFunction: f.CompletePaths,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer cmdutil.ReportAuditErrors()
			o.In, o.Out, o.flags = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.Flags()
			if d, isDB, err := f.DB(); isDB {
				if err != nil {
					return err
				}
				return runDBEvict(f, d, o, args)
			}
			r, isRedis, err := f.Redis()
			switch {
			case isRedis && err != nil:
				return err
			case isRedis:
				return runRedisEvict(r, o, args)
			case o.flags.Changed("token") || o.flags.Changed("any-key"):
				return errors.Join(redisFlagGiven(o.flags, "token"), redisFlagGiven(o.flags, "any-key"))
			case o.Session != "":
				return runEvictSession(f, o)
			}
			return runEvict(f, o, args[0])
		},
	}
	bindEvictFlags(cmd.Flags(), &o)
	return cmd
}

// bindEvictFlags binds evict's flags into o.
func bindEvictFlags(f *pflag.FlagSet, o *evictOptions) {
	f.StringVar(&o.ExpectSession, "expect-session", "", "delete only if the node belongs to this session (0x…)")
	f.StringVar(&o.ExpectCzxid, "expect-czxid", "", "delete only if the node has this creation zxid (0x…)")
	f.BoolVarP(&o.Yes, "yes", "y", false, "do not ask (needs --expect-session)")
	f.BoolVar(&o.AnyNode, "any-node", false, "delete a node that is no participant of a lock zkscope recognises")
	f.BoolVar(&o.ForceLeader, "force-leader", false, "delete the leader node of a Kafka, HDFS, HBase or Solr election (starts a new election)")
	f.StringVar(&o.Session, "session", "", "delete every lock node of this session (0x…) below --under")
	f.StringVar(&o.Under, "under", "/", "with --session: the path whose locks are scanned")
	f.StringVar(&o.Token, "token", "", "Redis only: delete the key only while it holds this token (as `zkscope locks` shows it)")
	f.BoolVar(&o.AnyKey, "any-key", false, "Redis only: delete a key that `zkscope locks` does not count as a lock")
}

// redisFlagGiven is the refusal of the Redis-only flag name when it was
// given (nil when not).
func redisFlagGiven(flags *pflag.FlagSet, name string) error {
	if flags.Changed(name) {
		return onlyRedisFlag(name)
	}
	return nil
}

// expected is what --expect-session and --expect-czxid ask for (0: any).
func (o *evictOptions) expected() (session, czxid int64, err error) {
	if o.ExpectSession != "" {
		if session, err = parseHexID(o.ExpectSession); err != nil {
			return 0, 0, cmdutil.Usagef("--expect-session: %w", err)
		}
	}
	if o.ExpectCzxid != "" {
		if czxid, err = parseHexID(o.ExpectCzxid); err != nil {
			return 0, 0, cmdutil.Usagef("--expect-czxid: %w", err)
		}
	}
	return session, czxid, nil
}

// runEvict force-deletes the ZooKeeper lock node node, once shown and
// confirmed.
func runEvict(f *cmdutil.Factory, o evictOptions, node string) error {
	wantSession, wantCzxid, err := o.expected()
	if err != nil {
		return err
	}
	if o.Yes && o.ExpectSession == "" {
		return audit.Refuse(nil, lockops.OpForceDelete, node, 0,
			"--yes needs --expect-session (the owner you mean to evict), so a new owner is never deleted by mistake")
	}
	ctx := context.Background()
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := audit.RefuseReadOnly(c, lockops.OpForceDelete, node); err != nil {
		return err // before the preview: nothing to confirm
	}
	opts := evict.Options{AnyNode: o.AnyNode, ForceLeader: o.ForceLeader}
	p, err := evict.PreviewEvict(ctx, c, node, opts)
	if err != nil {
		return err
	}
	fmt.Fprint(o.Out, evict.FormatPreview(p))
	if o.ExpectSession != "" && p.Session != wantSession {
		return fmt.Errorf("nothing deleted: %s now belongs to session %s, not %s", p.Node, lockops.FormatSession(p.Session), lockops.FormatSession(wantSession))
	}
	if wantCzxid != 0 && p.Czxid != wantCzxid {
		return fmt.Errorf("nothing deleted: %s was re-created (czxid 0x%x, expected 0x%x)", p.Node, p.Czxid, wantCzxid)
	}
	if !o.Yes {
		if err := confirmEvict(o, c, p); err != nil {
			return err
		}
	}
	if err := evict.Evict(ctx, c, p.Node, p.Expect, opts); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "deleted %s\n", printable.String(p.Node))
	return nil
}

// runEvictSession is `zkscope evict --session ID [--under PATH]`: list the
// session's lock nodes, confirm once, delete each.
func runEvictSession(f *cmdutil.Factory, o evictOptions) error {
	id, err := parseHexID(o.Session)
	if err != nil {
		return cmdutil.Usagef("--session: %w", err)
	}
	if !strings.HasPrefix(o.Under, "/") {
		return cmdutil.Usagef("--under %q: give an absolute path", o.Under)
	}
	ctx := context.Background()
	c, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	plan, err := evict.PlanSession(ctx, c, id, o.Under) // refuses --read-only first
	if err != nil {
		return err
	}
	plan.ForceLeader = o.ForceLeader
	if err := plan.Write(o.Out, time.Now()); err != nil || len(plan.Nodes) == 0 {
		return err
	}
	if !o.Yes {
		if err := confirmEvictSession(o, c, plan); err != nil {
			return err
		}
	}
	return evict.EvictSession(ctx, c, plan, func(n evict.SessionEvictNode, err error) {
		if err != nil {
			fmt.Fprintf(o.Out, "not deleted %s: %s\n", printable.String(n.Node), printable.String(err.Error()))
			return
		}
		fmt.Fprintf(o.Out, "deleted %s\n", printable.String(n.Node))
	})
}

// confirmEvictSession asks the operator at the terminal to type the
// session id. Without a terminal on stdin nothing can confirm: refused.
func confirmEvictSession(o evictOptions, c *zkview.Client, plan *evict.SessionEviction) error {
	sid := lockops.FormatSession(plan.Session)
	in, ok := cmdutil.ReaderIsTerminal(o.In)
	if !ok {
		return audit.Refuse(c, lockops.OpForceDelete, plan.Under, plan.Session,
			"stdin is not a terminal, so nobody can confirm; pass --yes to delete the session's lock nodes without asking")
	}
	fmt.Fprintf(o.Out, "\nType the session id (%s) to delete these %d node(s): ", sid, len(plan.Nodes))
	var typed string
	fmt.Fscanln(in, &typed)
	if typed != sid {
		return audit.Refuse(c, lockops.OpForceDelete, plan.Under, plan.Session, "not confirmed (the session id typed was not "+sid+"): nothing deleted")
	}
	return nil
}

// confirmEvict asks the operator at the terminal to type p's sequence
// number. Without a terminal on stdin nothing can confirm: refused.
func confirmEvict(o evictOptions, c *zkview.Client, p *evict.Preview) error {
	in, ok := cmdutil.ReaderIsTerminal(o.In)
	if !ok {
		return audit.Refuse(c, lockops.OpForceDelete, p.Node, p.Session, fmt.Sprintf(
			"stdin is not a terminal, so nobody can confirm; pass --yes --expect-session %s to delete it without asking", lockops.FormatSession(p.Session)))
	}
	what := "sequence number" // a single-node lock's node has none: its name
	if p.SequenceSuffix() == path.Base(p.Node) {
		what = "name"
	}
	fmt.Fprintf(o.Out, "\nType the node's %s (%s) to delete it: ", what, printable.String(p.SequenceSuffix()))
	var typed string
	fmt.Fscanln(in, &typed)
	if typed != p.SequenceSuffix() {
		return audit.Refuse(c, lockops.OpForceDelete, p.Node, p.Session, "not confirmed (the "+what+" typed was not "+p.SequenceSuffix()+"): nothing deleted")
	}
	return nil
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
