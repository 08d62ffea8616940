package main

// The TUI on Redis servers: `zkscope -s redis://host:port` with no
// subcommand. Wiring only: the reading is redisview's, the screens ui's.

import (
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui"
	"github.com/zkscope/zkscope/zkview"
)

// runRedisTUI opens the TUI on cfg's servers; handled is false when the
// servers are ZooKeeper's.
func runRedisTUI(theme string) (handled bool, err error) {
	t, c, ok, err := openRedisTarget()
	if !ok || err != nil {
		return ok, err
	}
	defer c.Close()
	settings := uiSettings()
	if theme == "" {
		theme = settings.Theme
	}
	if err := themes.Valid(theme); err != nil {
		return true, usagef("--theme: %w", err)
	}
	return true, ui.Run(ui.Options{
		Redis:    &ui.RedisOptions{Client: c, Context: t.Context},
		Servers:  c.Servers(),
		Context:  headerContext(zkview.Config{Context: t.Context}),
		Theme:    theme,
		ReadOnly: t.ReadOnly,
	})
}
