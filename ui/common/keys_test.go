package common

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

func helpText(bs []key.Binding) string {
	var s []string
	for _, b := range bs {
		s = append(s, b.Help().Desc)
	}
	return strings.Join(s, ", ")
}

// TestDBKeyBar: on a database server the footer and the `?` screen offer
// only the keys that work there: no lock action, session view, find,
// data viewer or editing, whatever the focus; ZooKeeper's still offer
// them.
func TestDBKeyBar(t *testing.T) {
	gone := []string{"take lock", "release/stop waiting", "revoke holder", "force-delete node", "its session", "find below", "data viewer", "new child", "delete", "sort (:sessions)"}
	for _, c := range []struct{ detail, lock bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
		k := DefaultKeyMap()
		k.SetContext(c.detail, c.lock, true, true, true)
		offered := map[string]bool{}
		for _, col := range append(k.FullHelp(), k.ShortHelp()) {
			for _, b := range col {
				offered[b.Help().Desc] = true
			}
		}
		for _, g := range gone {
			if offered[g] {
				t.Errorf("detail %v, lock %v: %q offered on a database: %s", c.detail, c.lock, g, helpText(k.ShortHelp()))
			}
		}
		if c.lock && !strings.Contains(helpText(k.ShortHelp()), "problems in full") {
			t.Errorf("detail %v, lock %v: no problems key: %s", c.detail, c.lock, helpText(k.ShortHelp()))
		}
	}
	k := DefaultKeyMap()
	k.SetContext(false, true, true, true, false)
	if s := helpText(k.ShortHelp()); !strings.Contains(s, "take lock") || !strings.Contains(s, "its session") {
		t.Errorf("ZooKeeper's lock keys: %s", s)
	}
}
