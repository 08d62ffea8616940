package main

import (
	"context"
	"fmt"
	"os"

	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui"
	"github.com/zkscope/zkscope/zkview"
)

// themeName is --theme ("" or "auto": from the terminal background, else
// the config file's theme).
var themeName string

// runTUI connects and opens the terminal UI.
func runTUI(ctx context.Context) error {
	theme := themeName
	fc, _ := zkview.LoadConfigFile(configPath(), conn.ConfigFile != "")
	if theme == "" && fc != nil {
		theme = fc.Theme
	}
	if err := themes.Valid(theme); err != nil {
		return fmt.Errorf("--theme: %w", err)
	}
	c, err := connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	name := conn.Context
	if name == "" {
		name = os.Getenv("ZKSCOPE_CONTEXT")
	}
	if name == "" && fc != nil && conn.Server == "" && os.Getenv("ZKSCOPE_SERVER") == "" {
		name = fc.CurrentContext
	}
	return ui.Run(ui.Options{
		Client:   c,
		Context:  name,
		Theme:    theme,
		ReadOnly: conn.ReadOnly,
		Contexts: fc.ContextNames(),
		Connect: func(ctx context.Context, name string) (*zkview.Client, error) {
			cfg, err := zkview.ResolveContext(conn, name, os.Getenv)
			if err != nil {
				return nil, err
			}
			ctx, cancel := context.WithTimeout(ctx, cfg.SessionTimeout)
			defer cancel()
			return zkview.Connect(ctx, cfg)
		},
	})
}

// configPath is --config or the default location.
func configPath() string {
	if conn.ConfigFile != "" {
		return conn.ConfigFile
	}
	return zkview.DefaultConfigPath(os.Getenv)
}
