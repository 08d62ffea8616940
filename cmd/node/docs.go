// Package node is the znode commands: tree and get (plain, scriptable
// reads), create, set and delete (changes through audit.Mutations, so each
// is version-checked, refused in read-only mode and audited exactly as
// the TUI's), getacl and setacl. Reading and printing the tree as it is
// walked is treeprint's.
package node

// The documents of -o json|yaml: a node, its stat, an ACL.

import (
	"encoding/base64"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/treeprint"
	"github.com/zkscope/zkscope/zkview"
)

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
	return &statDoc{
		Czxid: fmt.Sprintf("0x%x", st.Czxid), Mzxid: fmt.Sprintf("0x%x", st.Mzxid), Pzxid: fmt.Sprintf("0x%x", st.Pzxid),
		Ctime: statTime(st.Ctime), Mtime: statTime(st.Mtime),
		Version: st.Version, Cversion: st.Cversion, Aversion: st.Aversion,
		EphemeralOwner: lockops.FormatSession(st.EphemeralOwner),
		DataLength:     st.DataLength, NumChildren: st.NumChildren,
	}
}

// statTime is a stat's time (milliseconds since the epoch) in UTC, to the
// millisecond.
func statTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
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

// treeDoc fills doc's children below n, as tree's plain output prints
// them.
func treeDoc(t treeprint.Tree, doc *nodeDoc, n zkview.Node, stats bool) {
	if err := t.Errs[n.Path]; err != nil {
		doc.Error = err.Error()
		return
	}
	for _, k := range t.Kids[n.Path] {
		kd := nodeDocOf(k, false, stats)
		doc.Children = append(doc.Children, kd)
		if k.Err == nil {
			treeDoc(t, kd, k, stats)
		}
	}
}

// aclDoc is getacl's -o json|yaml document.
type aclDoc struct {
	Path       string     `json:"path" yaml:"path"`
	ACLVersion int32      `json:"acl_version" yaml:"acl_version"`
	ACL        []aclEntry `json:"acl" yaml:"acl"`
}

type aclEntry struct {
	Scheme string `json:"scheme" yaml:"scheme"`
	ID     string `json:"id" yaml:"id"`
	Perms  string `json:"perms" yaml:"perms"`
}
