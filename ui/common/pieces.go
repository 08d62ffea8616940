package common

import "strconv"

// Pieces keeps drawn pieces of lines from one drawing to the next, by a
// key that says everything a piece shows (so a piece found is the piece
// that would be drawn): a pane drawn tens of times a second under churn
// draws mostly the same pieces again. The pieces of the last two
// drawings are kept, no more; a theme change starts over.
type Pieces struct {
	cur, old map[string][]string
	theme    string
	plain    bool
}

// Frame starts a drawing in the theme named theme (plain: without
// colour): the pieces of the drawing before last go.
func (c *Pieces) Frame(theme string, plain bool) {
	if c.theme != theme || c.plain != plain || c.cur == nil {
		c.cur, c.old = map[string][]string{}, map[string][]string{}
		c.theme, c.plain = theme, plain
		return
	}
	c.old, c.cur = c.cur, c.old
	clear(c.cur)
}

// Get is the lines drawn for key (in this drawing or the one before).
func (c *Pieces) Get(key []byte) ([]string, bool) {
	if l, ok := c.cur[string(key)]; ok {
		return l, true
	}
	if l, ok := c.old[string(key)]; ok {
		c.cur[string(key)] = l
		return l, true
	}
	return nil, false
}

// Put keeps lines drawn for key (after Frame).
func (c *Pieces) Put(key []byte, lines []string) { c.cur[string(key)] = lines }

// KeyStr, KeyInt and KeyBool append one field of a piece's key (strings
// are length-prefixed: no two keys of different fields are equal).
func KeyStr(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

// KeyInt appends n to a key (KeyStr).
func KeyInt(b []byte, n int64) []byte { return append(strconv.AppendInt(b, n, 10), ';') }

// KeyBool appends v to a key (KeyStr).
func KeyBool(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}
