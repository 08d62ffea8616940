// Package ui is zkscope's Bubble Tea program: one root [Model] and its
// components (tree, detail, lock queue, dialogs) as plain structs.
package ui

import (
	tea "charm.land/bubbletea/v2"
)

// Model is the root and only tea.Model of the TUI.
type Model struct{}

var _ tea.Model = Model{}

// Init implements [tea.Model].
func (m Model) Init() tea.Cmd { return nil }

// Update implements [tea.Model].
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) { return m, nil }

// View implements [tea.Model].
func (m Model) View() tea.View { return tea.NewView("zkscope") }
