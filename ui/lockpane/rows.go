package lockpane

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/ui/common"
)

// The drawn rows of the entries, kept from one drawing to the next: a
// churning lock is drawn after each read (tens of times a second) and,
// between two reads, the rows on screen are mostly the same participants
// with the same words (ages change once a second), only their labels
// moved up by the releases. So what does not name a label is kept: a
// ghost's line, a participant's shortened name and its owner line, each
// keyed by everything it shows (a piece found is the piece that would be
// drawn); the pieces of the last two drawings are kept, no more.

// rowCache holds the drawn lines of entries by their key.
type rowCache struct {
	cur, old map[string][]string
	key      []byte // the key being built (reused)
	theme    string
	plain    bool
}

// frame starts a drawing: the rows of the drawing before last go.
func (c *rowCache) frame(theme string, plain bool) {
	if c.theme != theme || c.plain != plain || c.cur == nil {
		c.cur, c.old = map[string][]string{}, map[string][]string{}
		c.theme, c.plain = theme, plain
		return
	}
	c.old, c.cur = c.cur, c.old
	clear(c.cur)
}

// get is the lines drawn for key (in this drawing or the one before).
func (c *rowCache) get(key []byte) ([]string, bool) {
	if l, ok := c.cur[string(key)]; ok {
		return l, true
	}
	if l, ok := c.old[string(key)]; ok {
		c.cur[string(key)] = l
		return l, true
	}
	return nil, false
}

// put keeps lines drawn for key.
func (c *rowCache) put(key []byte, lines []string) { c.cur[string(key)] = lines }

// keyStr, keyInt and keyBool append one field of a row's key (strings
// are length-prefixed: no two keys of different fields are equal).
func keyStr(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

func keyInt(b []byte, n int64) []byte { return append(strconv.AppendInt(b, n, 10), ';') }

func keyBool(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

// ownerKey is the key of a participant's owner line: everything
// ownerLine draws.
func (p *Model) ownerKey(x *lockops.Participant) []byte {
	b := append(p.rows.key[:0], 'O')
	pr, ok := p.nodeProblem(x.Node)
	b = keyBool(b, ok)
	b = keyStr(b, string(pr.Kind))
	b = keyBool(b, x.Ephemeral)
	b = keyInt(b, x.Session)
	b = keyStr(b, x.Client)
	b = keyStr(b, string(x.Data))
	p.rows.key = b
	return b
}

// cachedOwnerLine is ownerLine, drawn once for as long as it shows.
func (p *Model) cachedOwnerLine(x *lockops.Participant) string {
	key := p.ownerKey(x)
	if l, ok := p.rows.get(key); ok {
		return l[0]
	}
	l := p.ownerLine(*x)
	p.rows.put(key, []string{l})
	return l
}

// shortName is a participant's name shortened and padded to w cells,
// made once for as long as it shows.
func (p *Model) shortName(name string, w int) string {
	b := append(p.rows.key[:0], 'N')
	b = keyInt(b, int64(w))
	b = append(b, name...)
	p.rows.key = b
	if l, ok := p.rows.get(b); ok {
		return l[0]
	}
	s := common.ShortName(lockops.ShortName(name), w)
	if pad := w - utf8.RuneCountInString(s); pad > 0 { // as %-*s pads
		s += strings.Repeat(" ", pad)
	}
	p.rows.put(b, []string{s})
	return s
}

// ghostKey is the key of a ghost's line.
func (p *Model) ghostKey(e lockEntry, cursor bool, ago string) []byte {
	b := append(p.rows.key[:0], 'G')
	b = keyBool(b, cursor)
	b = keyStr(b, string(e.p.State))
	b = keyStr(b, string(e.p.Mode))
	b = keyStr(b, e.p.Name)
	b = keyStr(b, e.label)
	b = keyStr(b, ago)
	p.rows.key = b
	return b
}
