package lock

// lock, evict and revoke against Redis servers (the target's redis://
// URLs): taking, extending, releasing and evicting are
// lockops/redislock's, the requests redisview's.

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/lockrun"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/redisview"
)

// onlyRedisFlag is the refusal of a Redis-only flag given for ZooKeeper
// servers.
func onlyRedisFlag(name string) error {
	return cmdutil.Usagef("--%s applies to Redis locks only (--server redis://…)", name)
}

// refuseZooKeeperFlags refuses flags that mean nothing on Redis, naming
// the first one given.
func refuseZooKeeperFlags(flags *pflag.FlagSet, r config.Redis, op, key string, names ...string) error {
	for _, n := range names {
		if f := flags.Lookup(n); f != nil && f.Changed {
			c, err := cmdutil.OpenRedis(r.Config)
			if err != nil {
				return err
			}
			defer c.Close()
			return redislock.Refuse(c, r.Context, op, key, "", fmt.Sprintf("--%s is for ZooKeeper locks; Redis locks are SET NX keys (one exclusive holder, a token, a TTL): leave it out", n))
		}
	}
	return nil
}

// runRedisLock is `zkscope lock KEY [-- CMD]` on Redis servers.
func runRedisLock(r config.Redis, o lockOptions) error {
	if err := refuseZooKeeperFlags(o.flags, r, lockops.OpTake, o.Path, "recipe", "force-recipe", "mode", "revocable"); err != nil {
		return err
	}
	to := redislock.TakeOptions{ReadOnly: r.ReadOnly, Context: r.Context, TTL: o.TTL, Note: o.Note}
	if to.TTL < 100*time.Millisecond {
		return cmdutil.Usagef("--ttl %s: give at least 100ms (e.g. 30s)", to.TTL)
	}
	var err error
	if to.Wait, to.Timeout, err = o.wait(); err != nil {
		return err
	}
	sig, err := lockrun.ParseSignal(o.KillSignal)
	if err != nil {
		return cmdutil.Usage(err)
	}
	c, err := cmdutil.OpenRedis(r.Config)
	if err != nil {
		return err
	}
	defer c.Close()
	lc, stop := lockCommand(o, sig)
	defer stop()
	code, err := lockrun.RunRedis(context.Background(), c, lc, to)
	return lockExit(code, err)
}

// runRedisEvict is `zkscope evict KEY [--token T] [--yes]` on Redis
// servers: show the key, confirm, delete it only where it still holds the
// token shown (or given).
func runRedisEvict(r config.Redis, o evictOptions, args []string) error {
	key := ""
	if len(args) > 0 {
		key = args[0]
	}
	if err := refuseZooKeeperFlags(o.flags, r, lockops.OpForceDelete, key, "session", "under", "expect-session", "expect-czxid", "any-node"); err != nil {
		return err
	}
	if len(args) != 1 {
		return cmdutil.Usagef("usage: zkscope evict KEY [--token TOKEN] [--yes]")
	}
	c, err := cmdutil.OpenRedis(r.Config)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	opts := redislock.EvictOptions{ReadOnly: r.ReadOnly, Context: r.Context}
	if o.Yes && o.Token == "" {
		return redislock.Refuse(c, r.Context, lockops.OpForceDelete, key, "",
			"--yes needs --token (the token you mean to evict, as `zkscope locks` shows it), so a new holder's key is never deleted by mistake")
	}
	if r.ReadOnly {
		_, err := redislock.Evict(ctx, c, key, o.Token, opts) // refused and audited
		return err
	}
	p, err := redislock.PreviewEvict(ctx, c, key)
	if err != nil {
		return err
	}
	if !p.Lock && !o.AnyKey {
		return redislock.NotLock(c, r.Context, p) // as ZooKeeper's evict without --any-node
	}
	fmt.Fprint(o.Out, redislock.FormatEvictPreview(p))
	token := o.Token
	if token == "" {
		token = p.Token
	} else if token != p.Token {
		return redislock.Refuse(c, r.Context, lockops.OpForceDelete, key, token,
			fmt.Sprintf("nothing deleted: %s now holds the token %q, not %q (--token)", key, p.Token, token))
	}
	if !o.Yes {
		if err := confirmRedisEvict(o.In, o.Out, c, r, p); err != nil {
			return err
		}
	}
	n, err := redislock.Evict(ctx, c, key, token, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "deleted %s (token %q) on %d of %d servers\n", key, token, n, c.Len())
	return nil
}

// confirmRedisEvict asks the operator at the terminal to type the token's
// last characters. Without a terminal on stdin nothing can confirm: refused.
func confirmRedisEvict(stdin io.Reader, out io.Writer, c *redisview.Client, r config.Redis, p *redislock.EvictPreview) error {
	in, ok := cmdutil.ReaderIsTerminal(stdin)
	if !ok {
		return redislock.Refuse(c, r.Context, lockops.OpForceDelete, p.Key, p.Token, fmt.Sprintf(
			"stdin is not a terminal, so nobody can confirm; pass --yes --token %q to delete it without asking", p.Token))
	}
	fmt.Fprintf(out, "\nType the token's last characters (%s) to delete it: ", printable.String(p.ConfirmSuffix()))
	var typed string
	fmt.Fscanln(in, &typed)
	if typed != p.ConfirmSuffix() {
		return redislock.Refuse(c, r.Context, lockops.OpForceDelete, p.Key, p.Token, "not confirmed (what was typed was not "+p.ConfirmSuffix()+"): nothing deleted")
	}
	return nil
}

// runRedisRevoke refuses `zkscope revoke` on Redis servers: nothing
// tells a Redis lock's holder to let go.
func runRedisRevoke(r config.Redis, key string) error {
	c, err := cmdutil.OpenRedis(r.Config)
	if err != nil {
		return err
	}
	defer c.Close()
	return redislock.Refuse(c, r.Context, lockops.OpRevoke, key, "",
		"Redis locks have no revocation protocol (nothing asks a holder to let go); `zkscope evict` deletes the key without telling its holder")
}
