package common

import "testing"

// TestPiecesKeepTwoDrawings: a piece put in a drawing is found in the
// next one (and kept by it), gone after two drawings without it, and
// gone at once when the theme changes.
func TestPiecesKeepTwoDrawings(t *testing.T) {
	var c Pieces
	key := KeyBool(KeyInt(KeyStr(nil, "owner"), 7), true)
	c.Frame("dark", false)
	c.Put(key, []string{"line"})
	c.Frame("dark", false)
	if l, ok := c.Get(key); !ok || l[0] != "line" {
		t.Fatalf("the next drawing does not find the piece: %v %v", l, ok)
	}
	c.Frame("dark", false)
	if _, ok := c.Get(key); !ok {
		t.Fatal("a piece found in the last drawing is gone")
	}
	c.Frame("dark", false)
	c.Frame("dark", false)
	if _, ok := c.Get(key); ok {
		t.Fatal("a piece outlived two drawings without it")
	}
	c.Put(key, []string{"line"})
	c.Frame("light", false)
	if _, ok := c.Get(key); ok {
		t.Fatal("a piece outlived a theme change")
	}
	if string(KeyStr(nil, "ab")) == string(KeyStr(KeyStr(nil, "a"), "b")) {
		t.Fatal("two keys of different fields are equal")
	}
}
