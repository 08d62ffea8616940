package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/zkview"
)

// errRedisForZooKeeper is the error of a ZooKeeper command given Redis
// servers, instead of a parse error of the URL as a ZooKeeper server list.
var errRedisForZooKeeper = errors.New("this command reads ZooKeeper; against Redis servers (redis://…) zkscope runs locks, doctor, lock, evict, revoke and the terminal UI")

// errDBForZooKeeper is errRedisForZooKeeper's sibling for database servers.
var errDBForZooKeeper = errors.New("this command reads ZooKeeper; against a database server (postgres://…, mysql://…) zkscope runs locks, doctor, lock and evict")

// ZooKeeper is the ZooKeeper connection the target names, or the usage
// error of a target that names Redis servers or could not be resolved.
func (f *Factory) ZooKeeper() (zkview.Config, error) {
	t := f.Target()
	if t.IsRedis() {
		return zkview.Config{}, Usage(errRedisForZooKeeper)
	}
	if t.IsDB() {
		return zkview.Config{}, Usage(errDBForZooKeeper)
	}
	if t.Err != nil {
		return zkview.Config{}, Usage(t.Err) // the connect string, context, credentials file: input
	}
	return t.ZooKeeper, nil
}

// Connect opens a client on the target's ZooKeeper servers, bounded by the
// session timeout so an unreachable ensemble fails fast with one line.
func (f *Factory) Connect(ctx context.Context) (*zkview.Client, error) {
	return f.ConnectWith(ctx, nil)
}

// ConnectWith is [Factory.Connect] with the configuration adjusted first
// (adjust may be nil).
func (f *Factory) ConnectWith(ctx context.Context, adjust func(*zkview.Config)) (*zkview.Client, error) {
	cfg, err := f.ZooKeeper()
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		adjust(&cfg)
	}
	return f.Dial(ctx, cfg, nil)
}

// Dial opens a client for cfg, bounded by --connect-timeout (default: its
// session timeout), and checks that its chroot exists. With report nil, on
// a terminal it says whom it is connecting to when that takes a while;
// else report is told each failed attempt (the TUI shows them).
func (f *Factory) Dial(ctx context.Context, cfg zkview.Config, report func(string)) (*zkview.Client, error) {
	if err := zkview.CheckConfig(cfg); err != nil {
		return nil, Usage(err)
	}
	timeout := f.Flags.ConnectTimeout
	if timeout == 0 {
		timeout = cfg.SessionTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := func() {}
	if report == nil {
		stop = SayWhenSlow(os.Stderr, time.Second, fmt.Sprintf("connecting to %s… (Ctrl-C gives up)", strings.Join(cfg.Servers, ",")))
	}
	c, err := zkview.ConnectReporting(ctx, cfg, report)
	stop()
	if err != nil {
		return nil, err
	}
	if err := c.CheckChroot(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Redis is the target's Redis servers; ok is false when they are
// ZooKeeper's. err is the usage error of settings that could not be
// resolved.
func (f *Factory) Redis() (r config.Redis, ok bool, err error) {
	t := f.Target()
	if !t.IsRedis() {
		return r, false, nil
	}
	return *t.Redis, true, Usage(t.Err)
}

// OpenRedis opens the target's Redis servers; ok is false (and nothing
// opened) when they are ZooKeeper's. On a nil error the caller closes the
// client.
func (f *Factory) OpenRedis() (r config.Redis, c *redisview.Client, ok bool, err error) {
	r, ok, err = f.Redis()
	if !ok || err != nil {
		return r, nil, ok, err
	}
	c, err = OpenRedis(r.Config)
	return r, c, true, err
}

var quietRedis sync.Once

// OpenRedis opens cfg's servers. go-redis writes its own log lines
// (reconnects, pool errors) on stderr, over the TUI and scripts' output:
// they are silenced first; every error still reaches zkscope through the
// return values.
func OpenRedis(cfg redisview.Config) (*redisview.Client, error) {
	quietRedis.Do(func() { redis.SetLogger(&logging.VoidLogger{}) })
	return redisview.Open(cfg)
}

// DB is the target's database server; ok is false when it names no
// database. err is the usage error of settings that could not be resolved.
func (f *Factory) DB() (d config.DB, ok bool, err error) {
	t := f.Target()
	if !t.IsDB() {
		return d, false, nil
	}
	return *t.DB, true, Usage(t.Err)
}

// OpenDB connects to the target's database server, bounded by its dial
// timeout; ok is false (and nothing opened) when the target names no
// database. On a nil error the caller closes the client.
func (f *Factory) OpenDB(ctx context.Context) (d config.DB, c *dbview.Client, ok bool, err error) {
	d, ok, err = f.DB()
	if !ok || err != nil {
		return d, nil, ok, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.Config.DialTimeout)
	defer cancel()
	stop := SayWhenSlow(os.Stderr, time.Second, fmt.Sprintf("connecting to %s… (Ctrl-C gives up)", d.Config.Addr()))
	c, err = dbview.Open(ctx, d.Config)
	stop()
	return d, c, true, err
}
