package main

// lock, evict and revoke against redis:// servers: the hooks main_lock.go
// calls first, wiring only (taking, extending, releasing and evicting are
// lockops', the requests redisview's).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/lockrun"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/zkview"
)

// redisLockFlags adds lock's Redis-only flags.
func redisLockFlags(f *pflag.FlagSet) {
	f.Duration("ttl", redislock.DefaultTTL, "Redis only: the key's expiry, extended at a third of it while held")
}

// redisEvictFlags adds evict's Redis-only flags.
func redisEvictFlags(f *pflag.FlagSet) {
	f.String("token", "", "Redis only: delete the key only while it holds this token (as `zkscope locks` shows it)")
	f.Bool("any-key", false, "Redis only: delete a key that `zkscope locks` does not count as a lock")
}

// onlyRedisFlag refuses a Redis-only flag given for ZooKeeper servers.
func onlyRedisFlag(cmd *cobra.Command, name string) error {
	if cmd.Flags().Changed(name) {
		return usagef("--%s applies to Redis locks only (--server redis://…)", name)
	}
	return nil
}

// refuseZooKeeperFlags refuses flags that mean nothing on Redis, naming
// the first one given.
func refuseZooKeeperFlags(cmd *cobra.Command, t redisTarget, op, key string, names ...string) error {
	for _, n := range names {
		if f := cmd.Flags().Lookup(n); f != nil && f.Changed {
			c, err := redisview.Open(t.Config)
			if err != nil {
				return err
			}
			defer c.Close()
			return redislock.Refuse(c, t.Context, op, key, "", fmt.Sprintf("--%s is for ZooKeeper locks; Redis locks are SET NX keys (one exclusive holder, a token, a TTL): leave it out", n))
		}
	}
	return nil
}

// runRedisLock is `zkscope lock KEY [-- CMD]` on Redis servers; handled
// is false when the servers are ZooKeeper's.
func runRedisLock(cmd *cobra.Command, key string, command []string) (handled bool, err error) {
	t, ok, err := resolveRedis(os.Getenv)
	if !ok {
		return false, onlyRedisFlag(cmd, "ttl")
	}
	if err != nil {
		return true, err
	}
	if err := refuseZooKeeperFlags(cmd, t, lockops.OpTake, key, "recipe", "force-recipe", "mode", "revocable"); err != nil {
		return true, err
	}
	f := cmd.Flags()
	o := redislock.TakeOptions{ReadOnly: t.ReadOnly, Context: t.Context}
	o.TTL, _ = f.GetDuration("ttl")
	o.Note, _ = f.GetString("note")
	timeout, _ := f.GetDuration("timeout")
	noWait, _ := f.GetBool("no-wait")
	killGrace, _ := f.GetDuration("kill-grace")
	killSignal, _ := f.GetString("kill-signal")
	if o.TTL < 100*time.Millisecond {
		return true, usagef("--ttl %s: give at least 100ms (e.g. 30s)", o.TTL)
	}
	switch {
	case noWait && f.Changed("timeout"):
		return true, usagef("--no-wait and --timeout exclude each other")
	case noWait:
		o.Wait = hold.WaitNone
	case timeout > 0:
		o.Wait, o.Timeout = hold.WaitTimeout, timeout
	}
	sig, err := lockrun.ParseSignal(killSignal)
	if err != nil {
		return true, usage(err)
	}
	c, err := redisview.Open(t.Config)
	if err != nil {
		return true, err
	}
	defer c.Close()
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	code, err := lockrun.RunRedis(context.Background(), c, lockrun.LockCommand{
		Path: key, Args: command, KillSignal: sig, KillGrace: killGrace,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Messages: os.Stderr, Signals: signals,
	}, o)
	if errors.Is(err, zkview.ErrReadOnly) {
		return true, err // refused: exit 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "zkscope:", printable.String(err.Error()))
	}
	if code != 0 {
		return true, exitError{code}
	}
	return true, nil
}

// runRedisEvict is `zkscope evict KEY [--token T] [--yes]` on Redis
// servers: show the key, confirm, delete it only where it still holds the
// token shown (or given).
func runRedisEvict(cmd *cobra.Command, args []string) (handled bool, err error) {
	t, ok, err := resolveRedis(os.Getenv)
	if !ok {
		return false, errors.Join(onlyRedisFlag(cmd, "token"), onlyRedisFlag(cmd, "any-key"))
	}
	if err != nil {
		return true, err
	}
	key := ""
	if len(args) > 0 {
		key = args[0]
	}
	if err := refuseZooKeeperFlags(cmd, t, lockops.OpForceDelete, key, "session", "under", "expect-session", "expect-czxid", "any-node"); err != nil {
		return true, err
	}
	if len(args) != 1 {
		return true, usagef("usage: zkscope evict KEY [--token TOKEN] [--yes]")
	}
	f := cmd.Flags()
	token, _ := f.GetString("token")
	yes, _ := f.GetBool("yes")
	anyKey, _ := f.GetBool("any-key")
	c, err := redisview.Open(t.Config)
	if err != nil {
		return true, err
	}
	defer c.Close()
	ctx := context.Background()
	opts := redislock.EvictOptions{ReadOnly: t.ReadOnly, Context: t.Context}
	if yes && token == "" {
		return true, redislock.Refuse(c, t.Context, lockops.OpForceDelete, key, "",
			"--yes needs --token (the token you mean to evict, as `zkscope locks` shows it), so a new holder's key is never deleted by mistake")
	}
	if t.ReadOnly {
		_, err := redislock.Evict(ctx, c, key, token, opts) // refused and audited
		return true, err
	}
	p, err := redislock.PreviewEvict(ctx, c, key)
	if err != nil {
		return true, err
	}
	if !p.Lock && !anyKey {
		return true, redislock.NotLock(c, t.Context, p) // as ZooKeeper's evict without --any-node
	}
	out := cmd.OutOrStdout()
	fmt.Fprint(out, redislock.FormatEvictPreview(p))
	if token == "" {
		token = p.Token
	} else if token != p.Token {
		return true, redislock.Refuse(c, t.Context, lockops.OpForceDelete, key, token,
			fmt.Sprintf("nothing deleted: %s now holds the token %q, not %q (--token)", key, p.Token, token))
	}
	if !yes {
		if err := confirmRedisEvict(cmd, c, t, p); err != nil {
			return true, err
		}
	}
	n, err := redislock.Evict(ctx, c, key, token, opts)
	if err != nil {
		return true, err
	}
	fmt.Fprintf(out, "deleted %s (token %q) on %d of %d servers\n", key, token, n, c.Len())
	return true, nil
}

// confirmRedisEvict asks the operator at the terminal to type the token's
// last characters. Without a terminal on stdin nothing can confirm: refused.
func confirmRedisEvict(cmd *cobra.Command, c *redisview.Client, t redisTarget, p *redislock.EvictPreview) error {
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !term.IsTerminal(in.Fd()) {
		return redislock.Refuse(c, t.Context, lockops.OpForceDelete, p.Key, p.Token, fmt.Sprintf(
			"stdin is not a terminal, so nobody can confirm; pass --yes --token %q to delete it without asking", p.Token))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nType the token's last characters (%s) to delete it: ", printable.String(p.ConfirmSuffix()))
	var typed string
	fmt.Fscanln(in, &typed)
	if typed != p.ConfirmSuffix() {
		return redislock.Refuse(c, t.Context, lockops.OpForceDelete, p.Key, p.Token, "not confirmed (what was typed was not "+p.ConfirmSuffix()+"): nothing deleted")
	}
	return nil
}

// runRedisRevoke refuses `zkscope revoke` on Redis servers: nothing
// tells a Redis lock's holder to let go.
func runRedisRevoke(args []string) (handled bool, err error) {
	t, c, ok, err := openRedisTarget()
	if !ok || err != nil {
		return ok, err
	}
	defer c.Close()
	return true, redislock.Refuse(c, t.Context, lockops.OpRevoke, args[0], "",
		"Redis locks have no revocation protocol (nothing asks a holder to let go); `zkscope evict` deletes the key without telling its holder")
}

// openRedisTarget resolves the connection and opens its Redis servers;
// ok is false (and nothing opened) when the servers are ZooKeeper's. On
// a nil error the caller closes the client.
func openRedisTarget() (t redisTarget, c *redisview.Client, ok bool, err error) {
	t, ok, err = resolveRedis(os.Getenv)
	if !ok || err != nil {
		return t, nil, ok, err
	}
	c, err = redisview.Open(t.Config)
	return t, c, true, err
}
