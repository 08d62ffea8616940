package lockpane

import (
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

// ownerKey is the key of a participant's owner line: everything
// ownerLine draws.
func (p *Model) ownerKey(x *lockops.Participant) []byte {
	b := append(p.rowKey[:0], 'O')
	pr, ok := p.nodeProblem(x.Node)
	b = common.KeyBool(b, ok)
	b = common.KeyStr(b, string(pr.Kind))
	b = common.KeyBool(b, x.Ephemeral)
	b = common.KeyInt(b, x.Session)
	b = common.KeyStr(b, x.Client)
	b = common.KeyStr(b, string(x.Data))
	p.rowKey = b
	return b
}

// cachedOwnerLine is ownerLine, drawn once for as long as it shows.
func (p *Model) cachedOwnerLine(x *lockops.Participant) string {
	key := p.ownerKey(x)
	if l, ok := p.rows.Get(key); ok {
		return l[0]
	}
	l := p.ownerLine(*x)
	p.rows.Put(key, []string{l})
	return l
}

// shortName is a participant's name shortened and padded to w cells,
// made once for as long as it shows.
func (p *Model) shortName(name string, w int) string {
	b := append(p.rowKey[:0], 'N')
	b = common.KeyInt(b, int64(w))
	b = append(b, name...)
	p.rowKey = b
	if l, ok := p.rows.Get(b); ok {
		return l[0]
	}
	s := common.ShortName(lockops.ShortName(name), w)
	if pad := w - utf8.RuneCountInString(s); pad > 0 { // as %-*s pads
		s += strings.Repeat(" ", pad)
	}
	p.rows.Put(b, []string{s})
	return s
}

// ghostKey is the key of a ghost's line.
func (p *Model) ghostKey(e lockEntry, cursor bool, ago string) []byte {
	b := append(p.rowKey[:0], 'G')
	b = common.KeyBool(b, cursor)
	b = common.KeyStr(b, string(e.p.State))
	b = common.KeyStr(b, string(e.p.Mode))
	b = common.KeyStr(b, e.p.Name)
	b = common.KeyStr(b, e.label)
	b = common.KeyStr(b, ago)
	p.rowKey = b
	return b
}
