package cmdutil

// Shell completion helpers and argument checks: znode paths (asked of the
// servers, briefly), context names, fixed lists of flag values (each from
// the package that owns the list).

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/zkview"
)

// completionTimeout bounds a completion's talk with the servers: a shell
// must never hang on Tab.
const completionTimeout = time.Second

// CompletePaths completes the first argument as a znode path: the
// children of the path typed so far, asked of the servers (nothing when
// they do not answer within completionTimeout).
func (f *Factory) CompletePaths(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return f.pathCandidates(toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// pathCandidates lists the znodes whose path starts with typed.
func (f *Factory) pathCandidates(typed string) []string {
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
	cfg, err := f.ZooKeeper()
	if err != nil || zkview.CheckConfig(cfg) != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	defer cancel()
	done := make(chan []string, 1)
	go func() { done <- children(ctx, cfg, parent) }()
	var kids []string
	select {
	case kids = <-done:
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

// children lists parent's children on cfg's servers (nil when that fails).
func children(ctx context.Context, cfg zkview.Config, parent string) []string {
	c, err := zkview.Connect(ctx, cfg)
	if err != nil {
		return nil
	}
	defer c.Close()
	kids, _, err := c.Children(parent)
	if err != nil {
		return nil
	}
	return kids
}

// CompleteContexts completes a context name from the config file.
func (f *Factory) CompleteContexts(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	fc, _, err := f.ConfigFile()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return fc.ContextNames(), cobra.ShellCompDirectiveNoFileComp
}

// Fixed completes a flag with a fixed list of values.
func Fixed(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// ZnodeArgs checks that the first n arguments are valid znode paths, with
// a hint for a relative one.
func ZnodeArgs(n int) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		for i, a := range args {
			if i == n {
				break
			}
			if err := zkview.ValidatePath(a); err != nil {
				return err
			}
		}
		return nil
	}
}

// PathArg is a command's optional PATH argument: the first of args, else
// the root, "/".
func PathArg(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return "/"
}

// LockPathArgs checks a lock command's argument: a znode path, or against
// Redis servers a key or key pattern ("lock:*").
func (f *Factory) LockPathArgs(cmd *cobra.Command, args []string) error {
	if t := f.Target(); t.IsRedis() || t.IsDB() {
		return nil
	}
	return ZnodeArgs(1)(cmd, args)
}
