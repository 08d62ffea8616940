package ui

import (
	"fmt"
	"path"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// The `:` command line: what each command does (its completion is in
// complete.go).

// runCommand executes a `:` command line.
func (m *Model) runCommand(line string) tea.Cmd {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil
	}
	arg := strings.TrimSpace(strings.TrimPrefix(line, fields[0]))
	if cmd, ok := m.redisCommand(fields[0], arg); ok {
		return cmd
	}
	switch fields[0] {
	case "q", "quit", "wq":
		return m.quit()
	case "q!":
		return tea.Quit
	case "cd", "open", "go":
		if arg == "" {
			arg = "/"
		}
		if !strings.HasPrefix(arg, "/") {
			arg = path.Join(m.tree.CursorPath(), arg)
		}
		return m.cd(arg)
	case "ctx", "context":
		if arg == "" {
			m.setStatus(common.LevelInfo, "Contexts: "+strings.Join(m.opts.Contexts, ", "))
			return nil
		}
		if m.opts.Connect == nil {
			m.setStatus(common.LevelErr, "Contexts are not available here (no config file loaded).")
			return nil
		}
		m.setStatus(common.LevelInfo, "Connecting to context "+arg+"…")
		return connectCmd(m.opts.Connect, arg)
	case "locks":
		root := m.tree.CursorPath()
		if arg != "" {
			root = common.CleanPath(arg)
		}
		if m.client == nil {
			return nil
		}
		m.setStatus(common.LevelInfo, "Looking for locks below "+root+"… (esc stops)")
		return m.beginSearch(root, "", true)
	case "ensemble", "members":
		return m.openEnsemble()
	case "sessions":
		root := "/"
		if arg != "" {
			root = arg
			if !strings.HasPrefix(arg, "/") {
				root = path.Join(m.tree.CursorPath(), arg)
			}
		}
		return m.openSessions(root)
	case "tree":
		m.screen = screenTree
		return nil
	case "theme":
		if err := themes.Valid(arg); err != nil {
			m.setStatus(common.LevelErr, err.Error())
			return nil
		}
		m.opts.Theme = arg
		m.applyTheme()
		m.detail.Invalidate()
		return nil
	case "find", "search":
		return m.startSearch(arg)
	case "help", "h":
		m.mode = modeHelp
		return nil
	}
	m.setStatus(common.LevelErr, fmt.Sprintf("Unknown command %q. Try :cd /path, :ctx name, :locks, :theme dark, :q.", fields[0]))
	return nil
}

func (m *Model) startSearch(q string) tea.Cmd {
	if q != "" && m.redis != nil {
		return m.redisFind(q)
	}
	if q == "" || m.client == nil {
		return nil
	}
	root := m.tree.CursorPath()
	m.lastFind = q
	m.setStatus(common.LevelInfo, fmt.Sprintf("Searching names and data below %s for %q… (esc stops)", root, q))
	return m.beginSearch(root, q, false)
}
