package root

// Exit statuses: what each means (one table, shown by every command's
// --help and kept equal to the docs' by a test), usage errors, and the
// status an error turns into.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// exitUsage is the status of input zkscope refuses before doing anything
// ([cmdutil.UsageError]): the same as a refusal's, since in both cases
// nothing was done and a script must change what it asks.
const exitUsage = lockops.ExitRefused

// exitStatuses are the statuses every command may exit with, in order.
// Every command's --help ends with them (exitStatusHelp) and the docs'
// "Exit status" table says the same (TestExitStatusTable).
var exitStatuses = []struct {
	code    string
	meaning string
}{
	{"0", "done; doctor: no problem found"},
	{"1", "failed, busy or problems found: a server error or no answer, a missing node or key, a lock held by someone else (lock --no-wait, --timeout), a holder that kept its lock (revoke); doctor: problems found"},
	{"2", "usage error or refusal, nothing done: a bad path, argument or flag value, flags that exclude each other, an unknown command, flag or --recipe; --read-only, an unclear or unsafe lock operation, a confirmation not given; doctor: nothing could be checked"},
	{"75", "lock: the lock was lost while held (CMD was stopped first)"},
	{"128+N", "lock (while waiting), demo: interrupted by signal N (130: Ctrl-C)"},
	{"CMD's", "lock PATH -- CMD: CMD's own exit status (128+N when signal N killed it; as a shell, 126 when it could not be run, 127 when it was not found)"},
}

// exitStatusHelp is the table as the end of every command's --help.
func exitStatusHelp() string {
	var b strings.Builder
	b.WriteString("\nExit status:\n")
	for _, s := range exitStatuses {
		fmt.Fprintf(&b, "  %-6s %s\n", s.code, wrapText(s.meaning, 70, "         "))
	}
	return b.String()
}

// exitStatusMarkdown is the table as the docs write it.
func exitStatusMarkdown() string {
	var b strings.Builder
	b.WriteString("| status | meaning |\n|---|---|\n")
	for _, s := range exitStatuses {
		fmt.Fprintf(&b, "| %s | %s |\n", s.code, s.meaning)
	}
	return b.String()
}

// wrapText breaks s into lines of at most width characters, the lines
// after the first indented by indent.
func wrapText(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && n+1+len(w) > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// ExitStatus is the process's exit status after cmd returned err (cmd may
// be nil when no command was found).
func ExitStatus(cmd *cobra.Command, err error) int {
	var ee cmdutil.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.Code
	case cmdutil.IsUsage(err), lockops.IsRefusal(err), errors.Is(err, zkview.ErrReadOnly):
		return exitUsage
	case cmd != nil && cmd.Name() == "doctor":
		return exitUsage // doctor: 2 is "could not check" (1 is "problems found")
	}
	return 1
}

// markUsageErrors makes the errors cobra finds before a command runs
// usage errors: a flag it cannot parse or does not know, and arguments the
// command's Args refuses (their count, a relative path, an unknown
// command). A group of commands (config, completion) runs to show its
// help, so that cobra checks its arguments: an unknown subcommand is an
// error, not the help with exit 0. The help and completion commands cobra
// adds are made first, so they are marked too.
func markUsageErrors(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.Usage(err) })
	// The table follows cobra's own help, through a help function, not a
	// template: a help template makes cobra run text/template, whose
	// reflection by method name keeps every exported method of every type
	// in the binary (the linker cannot drop any), doubling its code.
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		help(c, args)
		fmt.Fprint(c.OutOrStdout(), exitStatusHelp())
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.Runnable() && c.HasSubCommands() {
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			if c.Args == nil {
				c.Args = cobra.NoArgs
			}
		}
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error { return argsError(cmd, args(cmd, a)) }
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// argsError is the usage error of arguments cmd refused; a wrong count
// (cobra's "accepts 1 arg(s), received 0") says how the command is used.
func argsError(cmd *cobra.Command, err error) error {
	if err == nil {
		return nil
	}
	if msg := err.Error(); strings.HasPrefix(msg, "accepts ") || strings.HasPrefix(msg, "requires ") {
		return cmdutil.Usagef("%w (usage: %s)", err, cmd.UseLine())
	}
	return cmdutil.Usage(err)
}
