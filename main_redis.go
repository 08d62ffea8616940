package main

// Redis servers (--server redis://… or rediss://…, several for the masters
// of a Redlock): locks and doctor read and decode Redis locks. Wiring only:
// reading is redisview's, decoding and diagnostics lockops'.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/zkview"
)

// redisServer is the --server value (else ZKSCOPE_SERVER, else the
// context's servers) when it names Redis servers, with the credentials;
// ok false when the servers are ZooKeeper's.
func redisServer(getenv func(string) string) (cfg redisview.Config, ok bool, err error) {
	ctx, auth, err := zkview.ResolveContextSettings(conn, getenv)
	server := cmp.Or(strings.TrimSpace(conn.Server), getenv("ZKSCOPE_SERVER"))
	if server == "" && err == nil {
		server = ctx.Servers
	}
	if !redisview.IsRedisServer(server) {
		return cfg, false, nil
	}
	if err != nil {
		return cfg, true, err
	}
	eps, err := redisview.ParseServers(server)
	if err != nil {
		return cfg, true, err
	}
	if conn.Server != "" && redisview.HasCredentials(eps) {
		return cfg, true, errors.New("--server holds credentials, which other users can read in the process list: put user:password in --auth-file (or ZKSCOPE_AUTH, or the context)")
	}
	cfg = redisview.Config{Servers: eps, DialTimeout: cmp.Or(connectTimeout, 5*time.Second)}
	if auth != "" {
		cfg.Username, cfg.Password, _ = strings.Cut(auth, ":")
		if cfg.Username == "default" {
			cfg.Username = ""
		}
	}
	return cfg, true, nil
}

// readRedisLocks reads and decodes the locks matching pattern. A single
// server that fails is an error; of a Redlock's masters, only all failing
// is (the others' reads are decoded, the failing ones named as problems).
func readRedisLocks(ctx context.Context, cfg redisview.Config, pattern string) ([]lockops.Queue, []string, error) {
	c, err := redisview.Open(cfg)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	reads := c.ReadLocks(ctx, pattern)
	var errs []error
	for _, r := range reads {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	if len(errs) == len(reads) {
		return nil, nil, errors.Join(errs...)
	}
	queues := lockops.DecodeRedis(reads, time.Now())
	lockops.DiagnoseRedis(queues, lockops.RedisDiagnoseOptions{})
	return queues, c.Servers(), nil
}

// runRedisLocks is `zkscope locks PATTERN` on Redis servers (default
// pattern *); handled is false when the servers are ZooKeeper's.
func runRedisLocks(cmd *cobra.Command, args []string, asJSON bool) (handled bool, err error) {
	cfg, ok, err := redisServer(os.Getenv)
	if !ok || err != nil {
		return ok, err
	}
	queues, servers, err := readRedisLocks(cmd.Context(), cfg, redisPattern(args))
	if err != nil {
		return true, err
	}
	out := cmd.OutOrStdout()
	if asJSON {
		return true, lockops.WriteJSON(out, servers, queues)
	}
	return true, lockops.WriteTableWith(out, queues, time.Now(), lockops.TableOptions{FullNames: true})
}

// runRedisDoctor is `zkscope doctor PATTERN` on Redis servers: the
// problems, and exitProblems when any is not info.
func runRedisDoctor(cmd *cobra.Command, args []string) (handled bool, err error) {
	cfg, ok, err := redisServer(os.Getenv)
	if !ok || err != nil {
		return ok, err
	}
	queues, _, err := readRedisLocks(cmd.Context(), cfg, redisPattern(args))
	if err != nil {
		return true, err
	}
	out := cmd.OutOrStdout()
	n := 0
	for _, q := range queues {
		for _, pr := range q.Problems {
			if pr.Severity() == lockops.SeverityInfo {
				continue
			}
			n++
			fmt.Fprintf(out, "%s %s %s: %s\n", pr.Severity(), pr.Kind, cmp.Or(pr.Node, q.Path), pr.Detail)
		}
	}
	if n == 0 {
		fmt.Fprintf(out, "no problems in %d locks\n", len(queues))
		return true, nil
	}
	return true, exitError{code: 1}
}

func redisPattern(args []string) string {
	if len(args) > 0 && args[0] != "" {
		return args[0]
	}
	return "*"
}

// lockPathArgs checks locks' and doctor's argument: a znode path, or
// against a redis:// server a key pattern ("lock:*").
func lockPathArgs(cmd *cobra.Command, args []string) error {
	if _, isRedis, _ := redisServer(os.Getenv); isRedis {
		return nil
	}
	return znodeArgs(1)(cmd, args)
}
