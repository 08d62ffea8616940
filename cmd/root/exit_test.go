package root

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
)

// exitStatusDoc is the page whose exit status table every command's --help
// ends with.
const exitStatusDoc = "../../docs/taking-and-breaking-locks.md"

// exitStatusReadme is the README, which shows the same table.
const exitStatusReadme = "../../README.md"

// TestExitStatusTable: the exit status table of the docs is the one every
// command's --help ends with.
func TestExitStatusTable(t *testing.T) {
	for _, page := range []string{exitStatusDoc, exitStatusReadme} {
		doc, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), exitStatusMarkdown()) {
			t.Errorf("the exit status table of %s is not exitStatuses; write:\n%s", page, exitStatusMarkdown())
		}
	}
	root := NewCmdRoot(cmdutil.NewFactory(""))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		out, err := runHelp(append(strings.Fields(c.CommandPath())[1:], "--help")...)
		if err != nil || !strings.HasSuffix(out, exitStatusHelp()) {
			t.Errorf("%s --help does not end with the exit statuses (%v):\n%s", c.CommandPath(), err, out)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// runHelp runs zkscope with args in-process and returns what it printed.
func runHelp(args ...string) (string, error) {
	root := NewCmdRoot(cmdutil.NewFactory(""))
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}
