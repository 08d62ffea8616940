package ensemble

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"github.com/zkscope/zkscope/ui/common"
)

// KeyMap is the ensemble view's keys: the root routes them
// (ui/screens.go) and draws its footer and `?` screen from them, so the
// help shows what the view does, not the tree's keys.
type KeyMap struct {
	Up, Down, Refresh, Back key.Binding
	Command, Help, Quit     key.Binding
}

// Keys is the view's key map, made of the root's bindings (the same keys)
// with the view's own words.
func Keys(k common.KeyMap) KeyMap {
	km := KeyMap{Up: k.Up, Down: k.Down, Refresh: k.Refresh, Back: k.Cancel, Command: k.Command, Help: k.Help, Quit: k.Quit}
	km.Refresh.SetHelp("r", "ask the members now")
	km.Back.SetHelp("esc", "back to the tree")
	return km
}

// ShortHelp implements [help.KeyMap].
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Refresh, k.Back, k.Command, k.Help, k.Quit}
}

// FullHelp implements [help.KeyMap].
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down}, {k.Refresh, k.Back}, {k.Command, k.Help, k.Quit}}
}

var _ help.KeyMap = KeyMap{}
