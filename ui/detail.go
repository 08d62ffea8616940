package ui

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/zkscope/zkscope/ui/common"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/go-zookeeper/zk"
)

// viewer is how the detail pane shows a node's data.
type viewer int

const (
	viewerAuto viewer = iota
	viewerText
	viewerJSON
	viewerHex
	viewerBase64
	viewerCount
)

func (v viewer) String() string {
	return [...]string{"auto", "text", "json", "hex", "base64"}[v]
}

// maxShownData bounds how much data the viewers format (ZooKeeper allows
// about 1 MB per node).
const maxShownData = 64 << 10

// detailState is the detail pane: the node under the cursor as last read.
type detailState struct {
	path    string
	node    common.Node
	acl     []zk.ACL
	loaded  bool
	err     error
	viewer  viewer
	scroll  int
	lines   []string // rendered body (rebuilt on change, not in View)
	builtW  int
	isLock  bool // the lock pane replaces the body
	lockErr error
}

// decodedData is data prepared for display.
type decodedData struct {
	data   []byte
	gzip   bool   // data was gzip-compressed (data is the inflated bytes)
	binary bool   // not printable text
	json   bool   // valid JSON
	note   string // e.g. "gzip 120 B → 400 B"
}

func decodeData(raw []byte) decodedData {
	d := decodedData{data: raw}
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		if zr, err := gzip.NewReader(bytes.NewReader(raw)); err == nil {
			if out, err := io.ReadAll(io.LimitReader(zr, 4<<20)); err == nil {
				d.data, d.gzip = out, true
				d.note = fmt.Sprintf("gzip %s → %s", sizeText(len(raw)), sizeText(len(out)))
			}
		}
	}
	d.binary = !common.Printable(d.data)
	if !d.binary {
		t := bytes.TrimSpace(d.data)
		d.json = len(t) > 0 && (t[0] == '{' || t[0] == '[' || t[0] == '"') && json.Valid(t)
	}
	return d
}

func sizeText(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// effective resolves the auto viewer for d.
func (v viewer) effective(d decodedData) viewer {
	if v != viewerAuto {
		return v
	}
	switch {
	case d.binary:
		return viewerHex
	case d.json:
		return viewerJSON
	}
	return viewerText
}

// formatData renders data with viewer v into lines of at most width cells.
func formatData(d decodedData, v viewer, width int) (lines []string, used viewer) {
	used = v.effective(d)
	data := d.data
	cut := len(data) > maxShownData
	if cut {
		data = data[:maxShownData]
	}
	switch used {
	case viewerJSON:
		var buf bytes.Buffer
		if err := json.Indent(&buf, bytes.TrimSpace(data), "", "  "); err != nil {
			lines = append(lines, "(not valid JSON; shown as text)")
			lines = append(lines, textLines(data)...)
		} else {
			lines = textLines(buf.Bytes())
		}
	case viewerHex:
		lines = hexLines(data, width)
	case viewerBase64:
		s := base64.StdEncoding.EncodeToString(data)
		w := max(width, 8)
		for len(s) > w {
			lines = append(lines, s[:w])
			s = s[w:]
		}
		lines = append(lines, s)
	default:
		if d.binary {
			lines = textLines(bytes.Map(func(r rune) rune {
				if r == '\n' || r == '\t' || !unicode.IsControl(r) && r != utf8.RuneError {
					return r
				}
				return '·'
			}, data))
		} else {
			lines = textLines(data)
		}
	}
	if cut {
		lines = append(lines, fmt.Sprintf("… (first %s of %s shown)", sizeText(maxShownData), sizeText(len(d.data))))
	}
	out := lines[:0]
	for _, l := range lines {
		out = append(out, wrapLine(l, width)...)
	}
	return out, used
}

func textLines(b []byte) []string {
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\t", "    ")
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}

// wrapLine hard-wraps l at width cells.
func wrapLine(l string, width int) []string {
	if width < 1 || ansi.StringWidth(l) <= width {
		return []string{l}
	}
	return strings.Split(ansi.Hardwrap(l, width, true), "\n")
}

// hexLines is a classic hex dump, with as many bytes per line as fit.
func hexLines(b []byte, width int) []string {
	per := 16
	for per > 4 && 10+per*3+per+2 > width {
		per /= 2
	}
	var out []string
	for off := 0; off < len(b); off += per {
		chunk := b[off:min(off+per, len(b))]
		var sb strings.Builder
		fmt.Fprintf(&sb, "%08x  ", off)
		h := hex.EncodeToString(chunk)
		for i := 0; i < per; i++ {
			if i < len(chunk) {
				sb.WriteString(h[2*i : 2*i+2])
				sb.WriteByte(' ')
			} else {
				sb.WriteString("   ")
			}
		}
		sb.WriteByte(' ')
		for _, c := range chunk {
			if c >= 0x20 && c < 0x7f {
				sb.WriteByte(c)
			} else {
				sb.WriteByte('.')
			}
		}
		out = append(out, sb.String())
	}
	if len(out) == 0 {
		out = []string{"(empty)"}
	}
	return out
}

// zkTime renders a ZooKeeper millisecond timestamp in UTC.
func zkTime(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000Z")
}

// aclText renders one ACL entry like zkCli: scheme:id perms.
func aclText(a zk.ACL) string {
	perms := ""
	for _, p := range []struct {
		bit  int32
		name string
	}{{zk.PermCreate, "c"}, {zk.PermDelete, "d"}, {zk.PermRead, "r"}, {zk.PermWrite, "w"}, {zk.PermAdmin, "a"}} {
		if a.Perms&p.bit != 0 {
			perms += p.name
		}
	}
	return fmt.Sprintf("%s:%s  %s", a.Scheme, a.ID, perms)
}

// nodeTypeText names a node's type for the detail pane.
func nodeTypeText(k common.NodeKind) string {
	var parts []string
	switch {
	case k.Ephemeral:
		parts = append(parts, "ephemeral")
	case k.Container:
		parts = append(parts, "container")
	case k.TTL:
		parts = append(parts, fmt.Sprintf("persistent with TTL %s", time.Duration(k.TTLMillis)*time.Millisecond))
	default:
		parts = append(parts, "persistent")
	}
	if k.Sequential {
		parts = append(parts, "sequential")
	}
	return strings.Join(parts, ", ")
}

// buildDetail renders the detail body for the node under the cursor. It
// runs in Update when the node, the viewer or the width changes; View only
// slices the result.
func (m *Model) buildDetail(width int) {
	d := &m.detail
	d.builtW = width
	st := m.st
	var lines []string
	// A narrow pane (a 60-column terminal) gets short labels and times.
	narrow := width < 44
	short := map[string]string{"ephemeralOwner": "owner", "dataLength": "dataLen", "numChildren": "children"}
	kv := func(k, v string) {
		if narrow {
			if s, ok := short[k]; ok {
				k = s
			}
			lines = append(lines, st.Key.Render(fmt.Sprintf("%-9s", k))+st.Value.Render(v))
			return
		}
		lines = append(lines, st.Key.Render(fmt.Sprintf("%-15s", k))+st.Value.Render(v))
	}
	when := zkTime
	if narrow {
		when = func(ms int64) string {
			if ms == 0 {
				return "-"
			}
			return time.UnixMilli(ms).UTC().Format("01-02 15:04:05Z")
		}
	}
	switch {
	case d.err != nil && !d.loaded:
		lines = append(lines, st.Error.Render("Could not read this node."), "")
		lines = append(lines, wrapText(d.err.Error(), width)...)
		lines = append(lines, "", st.Muted.Render("Press r to try again."))
		d.lines = lines
		return
	case d.node.Gone:
		lines = append(lines, st.Warning.Render("This node was deleted."))
		d.lines = lines
		return
	case !d.loaded:
		d.lines = []string{st.Muted.Render("loading…")}
		return
	}
	n := d.node
	s := n.Stat
	_, name := common.SplitPath(d.path)
	lines = append(lines, st.Section.Render("stat"))
	kv("type", nodeTypeText(m.made.KindOf(d.path, name, s)))
	kv("czxid", common.HexID(s.Czxid))
	kv("mzxid", common.HexID(s.Mzxid))
	kv("pzxid", common.HexID(s.Pzxid))
	kv("ctime", when(s.Ctime))
	kv("mtime", when(s.Mtime))
	if narrow {
		kv("version", fmt.Sprintf("%d c%d a%d", s.Version, s.Cversion, s.Aversion))
	} else {
		kv("version", fmt.Sprintf("%d  cversion %d  aversion %d", s.Version, s.Cversion, s.Aversion))
	}
	if k := common.KindOf(name, s); k.Ephemeral {
		owner := common.HexID(s.EphemeralOwner)
		if addr, ok := m.clientOf(s.EphemeralOwner); ok {
			owner += "  client " + addr
		}
		kv("ephemeralOwner", owner)
	} else {
		kv("ephemeralOwner", common.HexID(s.EphemeralOwner))
	}
	kv("dataLength", fmt.Sprintf("%d", s.DataLength))
	kv("numChildren", fmt.Sprintf("%d", s.NumChildren))

	dd := decodeData(n.Data)
	body, used := formatData(dd, d.viewer, width)
	head := "data"
	var tabs []string
	for v := viewerText; v < viewerCount; v++ {
		if v == used {
			tabs = append(tabs, st.TabActive.Render(v.String()))
		} else {
			tabs = append(tabs, st.Tab.Render(v.String()))
		}
	}
	info := sizeText(len(n.Data))
	if dd.note != "" {
		info = dd.note
	}
	if dd.binary {
		info += ", binary"
	}
	lines = append(lines, "", st.Section.Render(head)+"  "+strings.Join(tabs, " ")+"  "+st.Muted.Render(info))
	if len(n.Data) == 0 {
		lines = append(lines, st.Muted.Render("(no data)"))
	} else {
		for _, l := range body {
			lines = append(lines, st.Data.Render(l))
		}
	}
	lines = append(lines, "", st.Section.Render("acl"))
	if len(d.acl) == 0 {
		lines = append(lines, st.Muted.Render("(not read)"))
	}
	for _, a := range d.acl {
		lines = append(lines, st.Value.Render(aclText(a)))
	}
	d.lines = lines
}

func wrapText(s string, width int) []string {
	return strings.Split(ansi.Wordwrap(s, max(width, 10), " "), "\n")
}

// clientOf looks a session up in the members' connection lists.
func (m *Model) clientOf(session int64) (string, bool) {
	if m.ens == nil {
		return "", false
	}
	return m.ens.ClientOf(session)
}
