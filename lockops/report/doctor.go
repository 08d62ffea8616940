package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/printable"
)

// WriteDoctorLines writes one kind<TAB>where<TAB>detail line per finding.
func WriteDoctorLines(w io.Writer, fs []diagnose.DoctorFinding) error {
	for _, f := range fs {
		if _, err := fmt.Fprintf(w, "%s\t%s\t%s\n", f.Kind, printable.String(f.Where()), printable.String(f.Detail)); err != nil {
			return err
		}
	}
	return nil
}

// DoctorSchema is the version of the `zkscope doctor --json` document.
const DoctorSchema = 1

// WriteDoctorJSON writes the `zkscope doctor --json` document: fields may
// be added, never renamed or dropped.
func WriteDoctorJSON(w io.Writer, servers []string, root string, locks int, fs []diagnose.DoctorFinding) error {
	type findingJSON struct {
		Kind     string   `json:"kind"`
		Lock     *string  `json:"lock"`
		Node     string   `json:"node"`
		Session  *string  `json:"session"`
		Nodes    []string `json:"nodes,omitempty"`
		Detail   string   `json:"detail"`
		Severity string   `json:"severity"`
	}
	doc := struct {
		Schema   int           `json:"schema"`
		Servers  []string      `json:"servers"`
		Path     string        `json:"path"`
		Locks    int           `json:"locks"`
		Problems []findingJSON `json:"problems"`
	}{Schema: DoctorSchema, Servers: servers, Path: root, Locks: locks, Problems: []findingJSON{}}
	if doc.Servers == nil {
		doc.Servers = []string{}
	}
	for _, f := range fs {
		j := findingJSON{Kind: string(f.Kind), Node: f.Node, Nodes: slices.Clone(f.Nodes), Detail: f.Detail, Severity: f.Kind.Severity().String()}
		if f.Lock != "" {
			j.Lock = ptr(f.Lock)
		}
		if f.Session != 0 {
			j.Session = ptr(lockops.FormatSession(f.Session))
		}
		doc.Problems = append(doc.Problems, j)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
