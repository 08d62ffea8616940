package detail

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
)

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
	return printable.String(a.Scheme+":"+a.ID) + "  " + perms
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

// build renders the body for the node, width cells wide. It runs in
// Update (through Sync) when the node, the viewer or the width changed;
// View only slices the result.
func (d *Model) build(width int) {
	d.builtW = width
	st := d.st
	if d.redis != nil {
		d.lines = d.redisLines(width) // a Redis key (redis.go)
		return
	}
	if d.redisMode && d.err == nil {
		d.lines = []string{st.Muted.Render("reading…")}
		return
	}
	switch {
	case d.err != nil && !d.loaded && errors.Is(d.err, zk.ErrNoAuth):
		d.lines = d.noAuthLines(width) // r would not help
		return
	case d.err != nil && !d.loaded:
		lines := []string{st.Error.Render("Could not read this node."), ""}
		lines = append(lines, wrapText(printable.String(d.err.Error()), width)...)
		d.lines = append(lines, "", st.Muted.Render("Press r to try again."))
		return
	case d.node.Gone:
		d.lines = []string{st.Warning.Render("This node was deleted.")}
		return
	case !d.loaded:
		d.lines = []string{st.Muted.Render("loading…")}
		return
	}
	lines := d.statLines(width)
	lines = append(lines, d.dataLines(width)...)
	d.lines = append(lines, d.aclLines()...)
}

// statLines are the stat section. A narrow pane (a 60-column terminal)
// gets short labels and times.
func (d *Model) statLines(width int) []string {
	st := d.st
	var lines []string
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
		when = shortTime
	}
	s := d.node.Stat
	_, name := common.SplitPath(d.path)
	lines = append(lines, st.Section.Render("stat"))
	kv("type", nodeTypeText(d.made.KindOf(d.path, name, s)))
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
	owner := common.HexID(s.EphemeralOwner)
	if k := common.KindOf(name, s); k.Ephemeral {
		if addr, ok := d.clientOf(s.EphemeralOwner); ok {
			owner += "  client " + printable.String(addr)
		}
	}
	kv("ephemeralOwner", owner)
	kv("dataLength", fmt.Sprintf("%d", s.DataLength))
	kv("numChildren", fmt.Sprintf("%d", s.NumChildren))
	return lines
}

// shortTime is zkTime for a narrow pane.
func shortTime(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format("01-02 15:04:05Z")
}

// dataLines are the data section: the viewers' tabs, the size and the
// data as the viewer shows it.
func (d *Model) dataLines(width int) []string {
	st := d.st
	n := d.node
	dd := decodeData(n.Data)
	body, used := formatData(dd, d.viewer, width)
	var tabs []string
	for v := ViewerText; v < viewerCount; v++ {
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
	lines := []string{"", st.Section.Render("data") + "  " + strings.Join(tabs, " ") + "  " + st.Muted.Render(info)}
	if len(n.Data) == 0 {
		return append(lines, st.Muted.Render("(no data)"))
	}
	paint := common.NewPainter(st) // thousands of lines for a big node
	for _, l := range body {
		lines = append(lines, paint.Render(&st.Data, l))
	}
	return lines
}

// aclLines are the ACL section.
func (d *Model) aclLines() []string {
	st := d.st
	lines := []string{"", st.Section.Render("acl")}
	if len(d.acl) == 0 {
		lines = append(lines, st.Muted.Render("(not read)"))
	}
	for _, a := range d.acl {
		lines = append(lines, st.Value.Render(aclText(a)))
	}
	return lines
}

// noAuthLines say that the node's ACL does not let this identity read it,
// and how to connect as one it does.
func (d *Model) noAuthLines(width int) []string {
	st := d.st
	who := "without credentials"
	if d.identity != "" {
		who = "as " + d.identity
	}
	var lines []string
	for _, l := range wrapText("Not readable with this identity.", width) {
		lines = append(lines, st.Error.Render(l))
	}
	lines = append(lines, "")
	lines = append(lines, wrapText("The node's ACL does not let zkscope read it: zkscope connected "+who+".", width)...)
	lines = append(lines, "")
	lines = append(lines, wrapText("To read it, start zkscope with credentials the ACL allows: --auth-file FILE (user:password, mode 0600), ZKSCOPE_AUTH=user:password, or auth_file in the context (:ctx NAME switches to another context).", width)...)
	return lines
}

func wrapText(s string, width int) []string {
	return strings.Split(ansi.Wordwrap(s, max(width, 10), " "), "\n")
}

// clientOf looks a session up in the members' connection lists.
func (d *Model) clientOf(session int64) (string, bool) {
	if d.ens == nil {
		return "", false
	}
	return d.ens.ClientOf(session)
}
