// Package tui is the root command's own run: the terminal UI on the
// target's ZooKeeper servers, or on its Redis servers. Wiring only: the
// screens are ui's, the reading zkview's and redisview's.
package tui

import (
	"context"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui"
	"github.com/zkscope/zkscope/zkview"
)

// Options are the root command's own flags.
type Options struct {
	// Txnlog is --txnlog: a transaction log whose past states the lock
	// pane's timeline steps through.
	Txnlog string
}

// Run opens the terminal UI on the target's servers.
func Run(f *cmdutil.Factory, o Options) error {
	if d, dc, isDB, err := f.OpenDB(context.Background()); isDB {
		if err != nil {
			return err
		}
		defer dc.Close()
		return runDB(f, d, dc)
	}
	r, c, isRedis, err := f.OpenRedis()
	if isRedis {
		if err != nil {
			return err
		}
		defer c.Close()
		return runRedis(f, r, c)
	}
	return runZooKeeper(f, o)
}

// theme is --theme, else the config file's theme, checked.
func theme(f *cmdutil.Factory, settings *config.File) (string, error) {
	t := f.Theme
	if t == "" {
		t = settings.Theme
	}
	if err := themes.Valid(t); err != nil {
		return "", cmdutil.Usagef("--theme: %w", err)
	}
	return t, nil
}

// runZooKeeper opens the terminal UI, which shows at once and connects in
// the background.
func runZooKeeper(f *cmdutil.Factory, o Options) error {
	t := f.Target()
	settings := f.UISettings()
	th, err := theme(f, settings)
	if err != nil {
		return err
	}
	if t.Err != nil {
		return cmdutil.Usage(t.Err)
	}
	cfg := t.ZooKeeper
	if err := zkview.CheckConfig(cfg); err != nil {
		return cmdutil.Usage(err)
	}
	return ui.Run(ui.Options{
		Dial: func(ctx context.Context, report func(string)) (*zkview.Client, error) {
			return f.Dial(ctx, cfg, report)
		},
		Servers:  cfg.Servers,
		Txnlog:   o.Txnlog,
		Context:  headerContext(f, cfg.Context),
		Theme:    th,
		ReadOnly: f.Flags.ReadOnly,
		Contexts: settings.ContextNames(),
		Connect: func(ctx context.Context, name string) (*zkview.Client, error) {
			cfg, err := config.ResolveContext(f.Flags, name, f.Getenv)
			if err != nil {
				return nil, err
			}
			return f.Dial(ctx, cfg, nil)
		},
	})
}

// runRedis opens the terminal UI on Redis servers (`zkscope -s
// redis://host:port` with no subcommand).
func runRedis(f *cmdutil.Factory, r config.Redis, c *redisview.Client) error {
	th, err := theme(f, f.UISettings())
	if err != nil {
		return err
	}
	return ui.Run(ui.Options{
		Redis:    &ui.RedisOptions{Client: c, Context: r.Context},
		Servers:  c.Servers(),
		Context:  headerContext(f, r.Context),
		Theme:    th,
		ReadOnly: r.ReadOnly,
	})
}

// runDB opens the terminal UI on a database server (`zkscope -s
// postgres://…` or `mysql://…` with no subcommand): read-only, the
// problems' bounds the defaults of `zkscope doctor`.
func runDB(f *cmdutil.Factory, d config.DB, c *dbview.Client) error {
	th, err := theme(f, f.UISettings())
	if err != nil {
		return err
	}
	return ui.Run(ui.Options{
		DB:       &ui.DBOptions{Client: c},
		Servers:  []string{c.Server()},
		Context:  headerContext(f, d.Context),
		Theme:    th,
		ReadOnly: true,
	})
}

// headerContext is the context the header names: the resolved one, unless
// --server or ZKSCOPE_SERVER replaced the servers of a context only the
// config file's current_context chose.
func headerContext(f *cmdutil.Factory, resolved string) string {
	if f.Flags.Context == "" && f.Getenv("ZKSCOPE_CONTEXT") == "" && (f.Flags.Server != "" || f.Getenv("ZKSCOPE_SERVER") != "") {
		return ""
	}
	return resolved
}
