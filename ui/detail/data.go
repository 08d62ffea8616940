package detail

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
)

// Viewer is how the detail pane shows a node's data.
type Viewer int

const (
	ViewerAuto Viewer = iota
	ViewerText
	ViewerJSON
	ViewerHex
	ViewerBase64
	viewerCount
)

func (v Viewer) String() string {
	return [...]string{"auto", "text", "json", "hex", "base64"}[v]
}

// maxShownData bounds how much data the viewers format (ZooKeeper allows
// about 1 MB per node).
const maxShownData = 64 << 10

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
func (v Viewer) effective(d decodedData) Viewer {
	if v != ViewerAuto {
		return v
	}
	switch {
	case d.binary:
		return ViewerHex
	case d.json:
		return ViewerJSON
	}
	return ViewerText
}

// formatData renders data with viewer v into lines of at most width cells.
func formatData(d decodedData, v Viewer, width int) (lines []string, used Viewer) {
	used = v.effective(d)
	data := d.data
	cut := len(data) > maxShownData
	if cut {
		data = data[:maxShownData]
	}
	switch used {
	case ViewerJSON:
		var buf bytes.Buffer
		if err := json.Indent(&buf, bytes.TrimSpace(data), "", "  "); err != nil {
			lines = append(lines, "(not valid JSON; shown as text)")
			lines = append(lines, textLines(data)...)
		} else {
			lines = textLines(buf.Bytes())
		}
	case ViewerHex:
		lines = hexLines(data, width)
	case ViewerBase64:
		s := base64.StdEncoding.EncodeToString(data)
		w := max(width, 8)
		for len(s) > w {
			lines = append(lines, s[:w])
			s = s[w:]
		}
		lines = append(lines, s)
	default:
		lines = textLines(data)
	}
	if cut {
		lines = append(lines, fmt.Sprintf("… (first %s of %s shown)", sizeText(maxShownData), sizeText(len(d.data))))
	}
	out := make([]string, 0, len(lines)) // not lines[:0]: a wrapped line would overwrite the next ones
	for _, l := range lines {
		out = append(out, wrapLine(l, width)...)
	}
	return out, used
}

// textLines splits text into lines, tabs as four spaces, every line
// escaped ([printable.String]: control bytes, C1 codes and bytes that are
// not UTF-8 shown as \x1b, \u009b, \xff).
func textLines(b []byte) []string {
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\t", "    ")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = printable.String(l)
	}
	return lines
}

// wrapLine hard-wraps l at width cells (a line of no more bytes than
// width fits: no rune is wider than its UTF-8).
func wrapLine(l string, width int) []string {
	if width < 1 || len(l) <= width || ansi.StringWidth(l) <= width {
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
