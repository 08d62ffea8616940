package main

// Output formats shared by the read commands: -o json|yaml, and text that
// is safe to print on a terminal.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// outputFormats are the values of -o / --output.
var outputFormats = []string{"json", "yaml"}

// outputFlag registers -o / --output.
func outputFlag(cmd *cobra.Command, output *string) {
	cmd.Flags().StringVarP(output, "output", "o", "", "print as json or yaml (default: text)")
}

// checkOutput refuses an unknown -o value before connecting.
func checkOutput(output string) error {
	switch output {
	case "", "json", "yaml":
		return nil
	}
	return usagef("--output %q: want json or yaml", output)
}

// writeDoc prints v as JSON (indented) or YAML.
func writeDoc(w io.Writer, format string, v any) error {
	if format == "yaml" {
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(v); err != nil {
			return err
		}
		return enc.Close()
	}
	enc := json.NewEncoder(printable.JSON(w))
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// statDoc is a stat in -o json|yaml: zxids and the owner session in hex as
// ZooKeeper prints them (session ids do not fit a JSON number), times in
// UTC.
type statDoc struct {
	Czxid          string `json:"czxid" yaml:"czxid"`
	Mzxid          string `json:"mzxid" yaml:"mzxid"`
	Pzxid          string `json:"pzxid" yaml:"pzxid"`
	Ctime          string `json:"ctime" yaml:"ctime"`
	Mtime          string `json:"mtime" yaml:"mtime"`
	Version        int32  `json:"version" yaml:"version"`
	Cversion       int32  `json:"cversion" yaml:"cversion"`
	Aversion       int32  `json:"aversion" yaml:"aversion"`
	EphemeralOwner string `json:"ephemeral_owner" yaml:"ephemeral_owner"`
	DataLength     int32  `json:"data_length" yaml:"data_length"`
	NumChildren    int32  `json:"num_children" yaml:"num_children"`
}

func newStatDoc(st zk.Stat) *statDoc {
	ms := func(v int64) string { return time.UnixMilli(v).UTC().Format("2006-01-02T15:04:05.000Z") }
	return &statDoc{
		Czxid: fmt.Sprintf("0x%x", st.Czxid), Mzxid: fmt.Sprintf("0x%x", st.Mzxid), Pzxid: fmt.Sprintf("0x%x", st.Pzxid),
		Ctime: ms(st.Ctime), Mtime: ms(st.Mtime),
		Version: st.Version, Cversion: st.Cversion, Aversion: st.Aversion,
		EphemeralOwner: lockops.FormatSession(st.EphemeralOwner),
		DataLength:     st.DataLength, NumChildren: st.NumChildren,
	}
}

// nodeDoc is one znode in -o json|yaml (get, and each node of tree).
type nodeDoc struct {
	Path string `json:"path" yaml:"path"`
	// Data is the text, or base64 when it is not valid UTF-8 (then
	// DataEncoding is "base64").
	Data         *string    `json:"data,omitempty" yaml:"data,omitempty"`
	DataEncoding string     `json:"data_encoding,omitempty" yaml:"data_encoding,omitempty"`
	Stat         *statDoc   `json:"stat,omitempty" yaml:"stat,omitempty"`
	Children     []*nodeDoc `json:"children,omitempty" yaml:"children,omitempty"`
	Error        string     `json:"error,omitempty" yaml:"error,omitempty"`
}

// setData fills Data and DataEncoding.
func (d *nodeDoc) setData(b []byte) {
	s := string(b)
	if !utf8.Valid(b) {
		s, d.DataEncoding = base64.StdEncoding.EncodeToString(b), "base64"
	}
	d.Data = &s
}

// nodeDocOf is n as a document; withData adds its data.
func nodeDocOf(n zkview.Node, withData, withStat bool) *nodeDoc {
	d := &nodeDoc{Path: n.Path}
	if n.Err != nil {
		d.Error = n.Err.Error()
		return d
	}
	if withData {
		d.setData(n.Data)
	}
	if withStat {
		d.Stat = newStatDoc(n.Stat)
	}
	return d
}

// znodeArgs checks that the first n arguments are valid znode paths, with
// a hint for a relative one.
func znodeArgs(n int) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		for i, a := range args {
			if i == n {
				break
			}
			if err := zkview.ValidatePath(a); err != nil {
				return err
			}
		}
		return nil
	}
}
