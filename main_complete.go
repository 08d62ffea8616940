package main

// Shell completion: znode paths (asked of the servers, briefly), context
// names and the values of enumerated flags. `zkscope completion bash|zsh|
// fish|powershell` prints the script (cobra's).

import (
	"context"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/zkview"
)

// completionTimeout bounds a completion's talk with the servers: a shell
// must never hang on Tab.
const completionTimeout = time.Second

// completePaths completes the first argument as a znode path: the children
// of the path typed so far, asked of the servers (nothing when they do not
// answer within completionTimeout).
func completePaths(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return pathCandidates(toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// pathCandidates lists the znodes whose path starts with typed.
func pathCandidates(typed string) []string {
	if typed == "" {
		typed = "/"
	}
	if !strings.HasPrefix(typed, "/") {
		return nil
	}
	parent, prefix := typed[:strings.LastIndexByte(typed, '/')], typed[strings.LastIndexByte(typed, '/')+1:]
	if parent == "" {
		parent = "/"
	}
	cfg, err := config.ResolveZooKeeper(conn, os.Getenv)
	if err != nil || zkview.CheckConfig(cfg) != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	defer cancel()
	type result struct{ names []string }
	done := make(chan result, 1)
	go func() {
		c, err := zkview.Connect(ctx, cfg)
		if err != nil {
			done <- result{}
			return
		}
		defer c.Close()
		kids, _, err := c.Children(parent)
		if err != nil {
			done <- result{}
			return
		}
		done <- result{kids}
	}()
	var kids []string
	select {
	case r := <-done:
		kids = r.names
	case <-ctx.Done():
		return nil
	}
	sort.Strings(kids)
	var out []string
	for _, k := range kids {
		if strings.HasPrefix(k, prefix) {
			out = append(out, zkview.Join(parent, k))
		}
	}
	return out
}

// completeContexts completes a context name from the config file.
func completeContexts(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	fc, _, err := loadConfig()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return fc.ContextNames(), cobra.ShellCompDirectiveNoFileComp
}

// fixed completes a flag with a fixed list of values.
func fixed(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerCompletions adds the completion of every enumerated flag and
// of --context, over the whole command tree.
func registerCompletions(root *cobra.Command) {
	root.RegisterFlagCompletionFunc("context", func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return completeContexts(cmd, nil, "")
	})
	root.RegisterFlagCompletionFunc("theme", fixed(themes.Names()...))
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
		values := map[string][]string{
			"recipe":      {"curator", "kazoo", "go-zk", "ephemeral"},
			"kill-signal": {"TERM", "INT", "HUP", "KILL"},
			"output":      outputFormats,
			"mode":        {"exclusive", "read", "write"},
		}
		switch cmd.Name() {
		case "create":
			values["mode"] = createModeNames
		case "version":
			values["output"] = []string{"text", "json"}
		case "get-contexts":
			values["output"] = []string{"name"}
		}
		for name, vals := range values {
			if cmd.LocalFlags().Lookup(name) != nil {
				cmd.RegisterFlagCompletionFunc(name, fixed(vals...))
			}
		}
	}
	walk(root)
}
