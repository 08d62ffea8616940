package exporter_test

import (
	"testing"
	"time"
	"unicode/utf8"

	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/lockops"
)

// FuzzLabelsFromServerText: whatever a server names a lock, a node or a
// client (invalid UTF-8, controls), a scrape serves it as valid,
// printable label values and never fails.
func FuzzLabelsFromServerText(f *testing.F) {
	f.Add("/app/locks/a", "/app/locks/a/_c_x-lock-0000000001", "10.0.0.1:5000", "prod")
	f.Add("/a\xff\x1b[2J", "n\u202e", "\x00", "c\xc3")
	f.Fuzz(func(t *testing.T, path, node, client, cluster string) {
		now := time.Now()
		q := lockops.Queue{Path: path, Kind: lockops.KindCuratorMutex, ReadAt: now, Participants: []lockops.Participant{
			{Node: node, State: lockops.StateHolding, Client: client, Session: 1, Ctime: now},
			{Node: node + "/w", State: lockops.StateWaiting, Ctime: now},
		}, Problems: []lockops.Problem{{Kind: lockops.ProblemOrphan, Node: node}}}
		c := exporter.NewCluster(cluster, exporter.ModeWatches, []string{"/"})
		c.Apply("/", []lockops.Queue{q}, now)
		reg, err := exporter.Registry([]*exporter.Cluster{c}, exporter.Options{HolderInfo: true}, false)
		if err != nil {
			t.Fatal(err)
		}
		fams, err := reg.Gather()
		if err != nil {
			t.Fatalf("gather: %v", err)
		}
		for _, fam := range fams {
			for _, m := range fam.Metric {
				for _, l := range m.Label {
					v := l.GetValue()
					if !utf8.ValidString(v) {
						t.Fatalf("label %s=%q is not UTF-8", l.GetName(), v)
					}
					for _, r := range v {
						if r < 0x20 || r == 0x7f || r == 0x202e {
							t.Fatalf("label %s=%q holds a control", l.GetName(), v)
						}
					}
				}
			}
		}
	})
}
