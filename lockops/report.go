package lockops

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// ReportSchema is the version of the `zkscope locks --json` document
// (shared/locks-json.md).
const ReportSchema = 1

// Report is the `zkscope locks --json` document.
type Report struct {
	Schema  int          `json:"schema"`
	Servers []string     `json:"servers"`
	Locks   []ReportLock `json:"locks"`
}

// ReportLock is one lock of a [Report].
type ReportLock struct {
	Path         string              `json:"path"`
	Recipe       string              `json:"recipe"`
	MaxLeases    int                 `json:"max_leases,omitempty"`
	Participants []ReportParticipant `json:"participants"`
	Problems     []ReportProblem     `json:"problems"`
	// Others: how the other libraries present would see a mixed directory.
	Others []ReportLock `json:"other_views,omitempty"`
}

// ReportParticipant is one node of a lock in a [Report].
type ReportParticipant struct {
	Node          string  `json:"node"`
	Seq           *int64  `json:"seq"`
	Mode          string  `json:"mode"`
	State         string  `json:"state"`
	Position      int     `json:"position"`
	Session       string  `json:"session"`
	Ephemeral     bool    `json:"ephemeral"`
	Client        *string `json:"client"`
	Data          string  `json:"data"`
	DataEncoding  string  `json:"data_encoding,omitempty"` // "base64" when the data is not text
	Ctime         string  `json:"ctime"`
	Watches       *string `json:"watches"`
	WatchKind     *string `json:"watch_kind"`
	WatchObserved *bool   `json:"watch_observed"`
	// ObservedWatches: the lock's nodes the servers list the owner session
	// watching (when they differ from the recipe's prediction, a waiter is
	// stuck or the client is a different version).
	ObservedWatches []string `json:"observed_watches,omitempty"`
}

// ReportProblem is one problem of a lock in a [Report].
type ReportProblem struct {
	Kind   string `json:"kind"`
	Node   string `json:"node"`
	Detail string `json:"detail"`
	// Severity is [ProblemKind.Severity]: "error", "warning" or "info"
	// (`zkscope doctor` does not count info).
	Severity string `json:"severity"`
}

// reportProblem is pr in the report of the lock at lockPath: a problem of
// the whole lock (mixed libraries, sequence overflow) names the lock's path
// as its node, as the contract wants a node on every problem.
func reportProblem(pr Problem, lockPath string) ReportProblem {
	node := pr.Node
	if node == "" {
		node = lockPath
	}
	return ReportProblem{Kind: string(pr.Kind), Node: node, Detail: pr.Detail, Severity: pr.Severity().String()}
}

// NewReport builds the JSON document for queues read from servers.
func NewReport(servers []string, queues []Queue) Report {
	r := Report{Schema: ReportSchema, Servers: append([]string{}, servers...), Locks: []ReportLock{}}
	for _, q := range queues {
		r.Locks = append(r.Locks, reportLock(q))
	}
	return r
}

func reportLock(q Queue) ReportLock {
	l := ReportLock{Path: q.Path, Recipe: string(q.Kind), MaxLeases: q.MaxLeases,
		Participants: []ReportParticipant{}, Problems: []ReportProblem{}}
	for _, p := range q.Participants {
		l.Participants = append(l.Participants, reportParticipant(p))
	}
	for _, pr := range q.Problems {
		l.Problems = append(l.Problems, reportProblem(pr, q.Path))
	}
	for _, o := range q.Others {
		l.Others = append(l.Others, reportLock(o))
	}
	return l
}

// appendParticipantJSON appends p as encoding/json (HTML left unescaped)
// writes reportParticipant(p), newline included, without reflection or a
// copy: a 10,000-contender report is mostly participants.
func appendParticipantJSON(b []byte, p *Participant, times *ctimes) []byte {
	b = append(b, `{"node":`...)
	b = appendJSONString(b, p.Node)
	b = append(b, `,"seq":`...)
	if p.HasSeq {
		b = strconv.AppendInt(b, p.Seq, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"mode":`...)
	b = appendJSONString(b, string(p.Mode))
	b = append(b, `,"state":`...)
	b = appendJSONString(b, string(p.State))
	b = append(b, `,"position":`...)
	b = strconv.AppendInt(b, int64(p.Position), 10)
	b = append(b, `,"session":"0x`...)
	b = strconv.AppendUint(b, uint64(p.Session), 16)
	b = append(b, `","ephemeral":`...)
	b = strconv.AppendBool(b, p.Ephemeral)
	b = append(b, `,"client":`...)
	b = appendJSONStringOrNull(b, p.Client)
	b = append(b, `,"data":`...)
	if utf8.Valid(p.Data) {
		b = appendJSONString(b, string(p.Data))
	} else {
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, p.Data)
		b = append(b, `","data_encoding":"base64"`...)
	}
	b = append(b, `,"ctime":"`...)
	b = times.append(b, p.Ctime)
	b = append(b, `","watches":`...)
	b = appendJSONStringOrNull(b, p.Watches)
	b = append(b, `,"watch_kind":`...)
	if p.Watches != "" {
		b = appendJSONString(b, string(p.WatchKind))
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"watch_observed":`...)
	if p.WatchObserved != nil {
		b = strconv.AppendBool(b, *p.WatchObserved)
	} else {
		b = append(b, "null"...)
	}
	if len(p.ObservedWatches) > 0 {
		b = append(b, `,"observed_watches":[`...)
		for i, w := range p.ObservedWatches {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, w)
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...)
}

// appendProblemJSON appends pr as encoding/json writes
// reportProblem(pr, lockPath).
func appendProblemJSON(b []byte, pr *Problem, lockPath string) []byte {
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, string(pr.Kind))
	b = append(b, `,"node":`...)
	if pr.Node != "" {
		b = appendJSONString(b, pr.Node)
	} else {
		b = appendJSONString(b, lockPath)
	}
	b = append(b, `,"detail":`...)
	b = appendJSONString(b, pr.Detail)
	b = append(b, `,"severity":"`...)
	b = append(b, pr.Severity().String()...)
	return append(b, "\"}\n"...)
}

func appendJSONStringOrNull(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendJSONString(b, s)
}

// ctimes formats creation times as the JSON contract has them
// (2006-01-02T15:04:05.000Z, UTC), keeping the text of the last second
// formatted: a queue's nodes are mostly made within a few seconds, so most
// times cost three digits instead of a whole layout.
type ctimes struct {
	sec    int64  // the second prefix is of
	prefix []byte // "2006-01-02T15:04:05."
}

func (c *ctimes) append(b []byte, t time.Time) []byte {
	ms := t.UnixMilli()
	sec := ms / 1000
	if ms%1000 < 0 {
		sec-- // before 1970: the second below
	}
	if c.prefix == nil || sec != c.sec {
		c.sec = sec
		c.prefix = time.UnixMilli(sec*1000).UTC().AppendFormat(c.prefix[:0], "2006-01-02T15:04:05.")
	}
	milli := ms - sec*1000
	b = append(b, c.prefix...)
	return append(b, byte('0'+milli/100), byte('0'+milli/10%10), byte('0'+milli%10), 'Z')
}

// plainPrefix is the length of the longest prefix of s that JSON quotes as
// it is (printable ASCII but '"' and '\\'), found eight bytes at a time.
func plainPrefix(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		control := (w - ones*0x20) &^ w & highs // a byte below 0x20
		q := w ^ ones*'"'
		bs := w ^ ones*'\\'
		quote := (q - ones) &^ q & highs // a byte that is '"'
		back := (bs - ones) &^ bs & highs
		if control|quote|back|w&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			break
		}
	}
	return i
}

// appendJSONString appends s quoted as encoding/json does with HTML
// escaping off: control characters, quote and backslash escaped, invalid
// UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := plainPrefix(s); i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func reportParticipant(p Participant) ReportParticipant {
	rp := ReportParticipant{
		Node:            p.Node,
		Mode:            string(p.Mode),
		State:           string(p.State),
		Position:        p.Position,
		Session:         FormatSession(p.Session),
		Ephemeral:       p.Ephemeral,
		Ctime:           p.Ctime.UTC().Format("2006-01-02T15:04:05.000Z"),
		WatchObserved:   p.WatchObserved,
		ObservedWatches: p.ObservedWatches,
	}
	if p.HasSeq {
		seq := p.Seq
		rp.Seq = &seq
	}
	if p.Client != "" {
		client := p.Client
		rp.Client = &client
	}
	if utf8.Valid(p.Data) {
		rp.Data = string(p.Data)
	} else {
		rp.Data, rp.DataEncoding = base64.StdEncoding.EncodeToString(p.Data), "base64"
	}
	if p.Watches != "" {
		w, k := p.Watches, string(p.WatchKind)
		rp.Watches, rp.WatchKind = &w, &k
	}
	return rp
}

// WriteJSON writes the `zkscope locks --json` document (compact, one
// participant per line). It streams: a 10,000-contender lock is megabytes,
// and is never held as one encoded buffer.
func WriteJSON(w io.Writer, servers []string, queues []Queue) error {
	return WriteJSONWith(w, servers, queues, nil)
}

// WriteJSONWith is [WriteJSON] with the report's "verification" object
// (left out when v is nil).
func WriteJSONWith(w io.Writer, servers []string, queues []Queue, v *Verification) error {
	bw := bufio.NewWriterSize(w, 256<<10) // a 10,000-contender report is ~4 MB
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if servers == nil {
		servers = []string{}
	}
	fmt.Fprintf(bw, `{"schema":%d,"servers":`, ReportSchema)
	if err := enc.Encode(servers); err != nil {
		return err
	}
	if v != nil {
		bw.WriteString(`,"verification":`)
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	bw.WriteString(`,"locks":[`)
	for i, q := range queues {
		if i > 0 {
			bw.WriteByte(',')
		}
		if err := writeLockJSON(bw, enc, q); err != nil {
			return err
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

func writeLockJSON(bw *bufio.Writer, enc *json.Encoder, q Queue) error {
	bw.WriteString(`{"path":`)
	if err := enc.Encode(q.Path); err != nil {
		return err
	}
	bw.WriteString(`,"recipe":`)
	enc.Encode(string(q.Kind))
	if q.MaxLeases > 0 {
		fmt.Fprintf(bw, `,"max_leases":%d`, q.MaxLeases)
	}
	bw.WriteString(`,"participants":[`)
	var buf []byte
	var times ctimes
	for i := range q.Participants {
		if i > 0 {
			bw.WriteByte(',')
		}
		buf = appendParticipantJSON(buf[:0], &q.Participants[i], &times)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	bw.WriteString(`],"problems":[`)
	for i := range q.Problems {
		if i > 0 {
			bw.WriteByte(',')
		}
		buf = appendProblemJSON(buf[:0], &q.Problems[i], q.Path)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	bw.WriteByte(']')
	if len(q.Others) > 0 {
		bw.WriteString(`,"other_views":[`)
		for i, o := range q.Others {
			if i > 0 {
				bw.WriteByte(',')
			}
			if err := writeLockJSON(bw, enc, o); err != nil {
				return err
			}
		}
		bw.WriteByte(']')
	}
	bw.WriteString("}\n")
	return nil
}

// WriteTable writes the queues for people: per lock a title line, then one
// row per participant in order with how long it has held or waited (since
// its node was created), the node it watches and whether the servers
// confirm the watch, then the problems.
func WriteTable(w io.Writer, queues []Queue, now time.Time) error {
	return WriteTableWith(w, queues, now, TableOptions{})
}

// TableOptions tune [WriteTableWith].
type TableOptions struct {
	// FullNames prints node names whole instead of [ShortName]'s (into a
	// pipe: names a script can pass to evict).
	FullNames bool
	// Footnote, when set, is printed once after the table (why clients or
	// watches are unknown: [Verification.Note]).
	Footnote string
}

// WriteTableWith is [WriteTable] with options. A mixed-library lock is
// followed by how each other library sees the same nodes.
func WriteTableWith(w io.Writer, queues []Queue, now time.Time, o TableOptions) error {
	if len(queues) == 0 {
		_, err := fmt.Fprintln(w, "no locks found")
		return err
	}
	name := ShortName
	if o.FullNames {
		name = func(s string) string { return s }
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, q := range queues {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		writeTableLock(tw, q, now, name, "")
		for _, other := range q.Others {
			fmt.Fprintln(tw)
			writeTableLock(tw, other, now, name, "as "+string(other.Kind)+" sees it: ")
		}
	}
	if o.Footnote != "" {
		fmt.Fprintf(tw, "\nnote: %s\n", o.Footnote)
	}
	return tw.Flush()
}

func writeTableLock(tw io.Writer, q Queue, now time.Time, name func(string) string, prefix string) {
	holders, waiters := len(q.Holders()), len(q.Waiters())
	title := fmt.Sprintf("%s%s  %s  %d holding, %d waiting", prefix, q.Path, q.Kind, holders, waiters)
	if q.MaxLeases > 0 {
		title += fmt.Sprintf(" (max %d leases)", q.MaxLeases)
	}
	fmt.Fprintln(tw, title)
	if len(q.Participants) > 0 {
		fmt.Fprintln(tw, "  #\tSTATE\tMODE\tNODE\tSESSION\tCLIENT\tFOR\tWAITS ON\tDATA")
	}
	for _, p := range q.Participants {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			p.Position, p.State, p.Mode, name(p.Name), FormatSession(p.Session), orDash(p.Client),
			FormatAge(now.Sub(p.Ctime)), watchCell(p, name), DescribeData(p.Data, 32))
	}
	for _, pr := range q.Problems {
		node := ""
		if pr.Node != "" {
			node = " " + name(pr.Node[strings.LastIndexByte(pr.Node, '/')+1:]) + ":"
		}
		fmt.Fprintf(tw, "  ! %s%s %s\n", pr.Kind, node, pr.Detail)
	}
}

func watchCell(p Participant, name func(string) string) string {
	switch {
	case p.Watches == "":
		return "-"
	case p.WatchKind == WatchChildren:
		return "children of " + p.Watches + " " + ObservedMark(p.WatchObserved)
	}
	return name(p.Watches[strings.LastIndexByte(p.Watches, '/')+1:]) + " (" + string(p.WatchKind) + ") " + ObservedMark(p.WatchObserved)
}

// ObservedMark is ✓ when the servers confirm a watch, ✗ when they do not,
// ? when unknown.
func ObservedMark(observed *bool) string {
	switch {
	case observed == nil:
		return "?"
	case *observed:
		return "✓"
	}
	return "✗"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ShortName shortens the random part of a lock node's name so a queue fits
// a terminal: Curator's "_c_5b0e61c1-…-lock-0000000007" keeps the UUID's
// first group, kazoo's and go-zookeeper's hex keep 8 digits.
func ShortName(name string) string {
	if rest, ok := strings.CutPrefix(name, "_c_"); ok {
		if len(rest) > 37 && isUUID36(rest[:36]) {
			return "_c_" + rest[:8] + "…" + rest[36:]
		}
		if len(rest) > 33 && isHex(rest[:32]) {
			return "_c_" + rest[:8] + "…" + rest[32:]
		}
	}
	if len(name) > 32 && isHex(name[:32]) {
		return name[:8] + "…" + name[32:]
	}
	return name
}

// FormatAge prints a duration the way an operator reads it: 45s, 12m03s,
// 3h07m, 2d05h.
func FormatAge(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// DescribeData shows node data in at most max runes: text as is (control
// characters escaped), Curator's revocation marker named, anything else as
// "<N bytes binary>".
func DescribeData(b []byte, max int) string {
	switch {
	case len(b) == 0:
		return "-"
	case string(b) == string(revokeMessage):
		return "__REVOKE__ (revocation requested)"
	case !utf8.Valid(b):
		return fmt.Sprintf("<%d bytes binary>", len(b))
	}
	s := strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '·'
		}
		return r
	}, string(b))
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return s
}
