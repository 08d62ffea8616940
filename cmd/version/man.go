package version

// The hidden man command: the man pages (roff), generated from the
// commands. Written here rather than through a Markdown-to-roff converter:
// the help texts are plain text, and such a converter's tables cost every
// run of zkscope milliseconds at start-up.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zkscope/zkscope/cmd/cmdutil"
)

// NewCmdMan is the hidden `zkscope man DIR`.
func NewCmdMan(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write zkscope's man pages (section 1), generated from the commands, into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			source := "zkscope " + Build(f.Version).Version
			if err := writeManTree(cmd.Root(), source, args[0]); err != nil {
				return fmt.Errorf("write man pages: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "man pages written to %s (try: man %s/zkscope.1)\n", args[0], args[0])
			return nil
		},
	}
}

// writeManTree writes a page for c and each of its visible subcommands,
// named as their command lines are (zkscope-config-use-context.1).
func writeManTree(c *cobra.Command, source, dir string) error {
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			if err := writeManTree(sub, source, dir); err != nil {
				return err
			}
		}
	}
	name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
	return os.WriteFile(filepath.Join(dir, name), manPage(c, source), 0o644)
}

// manPage is c's page: name, synopsis, description, options, examples and
// the related pages.
func manPage(c *cobra.Command, source string) []byte {
	var b bytes.Buffer
	dashed := strings.ReplaceAll(c.CommandPath(), " ", "-")
	fmt.Fprintf(&b, ".TH \"ZKSCOPE\" \"1\" \"\" %q \"zkscope manual\"\n", source)
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roffEscape(dashed), roffEscape(c.Short))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.B %s\n", roffEscape(c.UseLine()))
	description := c.Long
	if description == "" {
		description = c.Short
	}
	fmt.Fprintf(&b, ".SH DESCRIPTION\n%s\n", roffText(description))
	manFlags(&b, "OPTIONS", c.NonInheritedFlags())
	manFlags(&b, "OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags())
	if c.Example != "" {
		fmt.Fprintf(&b, ".SH EXAMPLE\n.nf\n%s\n.fi\n", roffText(c.Example))
	}
	var related []string
	if c.HasParent() {
		related = append(related, strings.ReplaceAll(c.Parent().CommandPath(), " ", "-"))
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			related = append(related, strings.ReplaceAll(sub.CommandPath(), " ", "-"))
		}
	}
	if len(related) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, r := range related {
			sep := ","
			if i == len(related)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "\\fB%s\\fP(1)%s\n", roffEscape(r), sep)
		}
	}
	return b.Bytes()
}

// manFlags writes a section of flags, one tagged paragraph each.
func manFlags(b *bytes.Buffer, title string, flags *pflag.FlagSet) {
	if !flags.HasAvailableFlags() {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", title)
	flags.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		tag := "\\fB\\-\\-" + roffEscape(fl.Name) + "\\fP"
		if fl.Shorthand != "" && fl.ShorthandDeprecated == "" {
			tag = "\\fB\\-" + roffEscape(fl.Shorthand) + "\\fP, " + tag
		}
		if fl.Value.Type() != "bool" {
			tag += "=\\fI" + roffEscape(fl.Value.Type()) + "\\fP"
		}
		usage := fl.Usage
		if !zeroDefault(fl.DefValue) {
			usage += fmt.Sprintf(" (default %s)", fl.DefValue)
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", tag, roffText(usage))
	})
}

// roffText is plain text as roff body lines: escaped, and a line that
// would start with a control character made literal.
func roffText(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		l = roffEscape(l)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = "\\&" + l
		}
		if strings.TrimSpace(l) == "" {
			l = ".sp"
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// roffEscape escapes roff's escape character and the hyphen (so that
// flags copy as the ASCII they are).
func roffEscape(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}

// zeroDefault reports whether a flag's default is its type's zero value,
// which the page leaves unsaid as --help does.
func zeroDefault(v string) bool {
	switch v {
	case "", "false", "0", "0s", "[]":
		return true
	}
	return false
}
