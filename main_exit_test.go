package main

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestExitStatusTable: the README's exit status table is the one every
// command's --help ends with.
func TestExitStatusTable(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), exitStatusMarkdown()) {
		t.Errorf("the README's exit status table is not exitStatuses; write:\n%s", exitStatusMarkdown())
	}
	root := newRoot()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		out, err := run(t, append(strings.Fields(c.CommandPath())[1:], "--help")...)
		if err != nil || !strings.HasSuffix(out, exitStatusHelp()) {
			t.Errorf("%s --help does not end with the exit statuses (%v):\n%s", c.CommandPath(), err, out)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
