package main

import (
	"context"
	"os"

	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui"
	"github.com/zkscope/zkscope/zkview"
)

// tuiTxnlog is the TUI's --txnlog: a transaction log whose past states
// the lock pane's timeline steps through.
var tuiTxnlog string

// themeName is --theme ("" or "auto": from the terminal background, else
// the config file's theme).
var themeName string

// runTUI connects and opens the terminal UI.
func runTUI(ctx context.Context) error {
	if handled, err := runRedisTUI(themeName); handled {
		return err // --server redis://… (main_redis_tui.go)
	}
	cfg, cfgErr := config.ResolveZooKeeper(conn, os.Getenv)
	settings := uiSettings()
	theme := themeName
	if theme == "" {
		theme = settings.Theme
	}
	if err := themes.Valid(theme); err != nil {
		return usagef("--theme: %w", err)
	}
	if cfgErr != nil {
		return usage(cfgErr)
	}
	if err := zkview.CheckConfig(cfg); err != nil {
		return usage(err)
	}
	// The UI shows at once and connects in the background.
	return ui.Run(ui.Options{
		Dial: func(ctx context.Context, report func(string)) (*zkview.Client, error) {
			return dialConfig(ctx, cfg, report)
		},
		Servers:  cfg.Servers,
		Txnlog:   tuiTxnlog,
		Context:  headerContext(cfg),
		Theme:    theme,
		ReadOnly: conn.ReadOnly,
		Contexts: settings.ContextNames(),
		Connect: func(ctx context.Context, name string) (*zkview.Client, error) {
			cfg, err := config.ResolveContext(conn, name, os.Getenv)
			if err != nil {
				return nil, err
			}
			return connectConfig(ctx, cfg)
		},
	})
}

// uiSettings is what the config file says about the UI itself (theme,
// the contexts `:ctx` offers), as opposed to the connection zkview
// resolves. A file that cannot be read gives none: ResolveConfig reports
// the same failure.
func uiSettings() *config.File {
	fc, err := config.LoadFile(config.FilePath(conn, os.Getenv))
	if err != nil {
		return &config.File{}
	}
	return fc
}

// headerContext is the context the header names: the resolved one, unless
// --server or ZKSCOPE_SERVER replaced the servers of a context only the
// config file's current_context chose.
func headerContext(cfg zkview.Config) string {
	if conn.Context == "" && os.Getenv("ZKSCOPE_CONTEXT") == "" && (conn.Server != "" || os.Getenv("ZKSCOPE_SERVER") != "") {
		return ""
	}
	return cfg.Context
}
