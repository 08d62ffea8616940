package dialog

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/ui/common"
)

// stubView is the lock pane's side of the dialog, for tests.
type stubView struct{}

func (stubView) Now() time.Time                   { return time.Unix(1_700_000_000, 0) }
func (stubView) NodeRefs(nodes []string) []string { return nodes }
func (stubView) WaiterEvictNext(string) string    { return "the next waiter re-checks" }

// forceDeleteWith opens the force-delete dialog on pv and delivers the
// preview.
func forceDeleteWith(t *testing.T, pv *evict.Preview) *ForceDelete {
	t.Helper()
	d := NewForceDelete(styles(t), common.DefaultLockKeyMap(), lockops.Participant{Node: pv.Node}, "L", 7, stubView{})
	d.Init()
	d.Update(EvictPreviewMsg{ID: 7, Node: pv.Node, Preview: pv})
	return d
}

// typeInto types s into d, after clearing what was typed.
func typeInto(d *ForceDelete, s string) {
	for range 60 {
		d.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	for _, r := range s {
		d.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// TestForceDeleteSystemLeader: on a system's leader node the dialog says a
// new election follows in that system and takes only the system's name
// and the node's as confirmation (the node's name alone, enough for other
// nodes, is not); the delete it asks for carries ForceLeader. Other nodes
// are confirmed by their sequence number, without ForceLeader.
func TestForceDeleteSystemLeader(t *testing.T) {
	for _, tc := range []struct {
		recipe, node, weak, strong, system string
	}{
		{"kafka.controller", "/kafka/controller", "controller", "kafka controller", "Kafka"},
		{"hadoop.ha", "/hadoop-ha/ns1/ActiveStandbyElectorLock", "ActiveStandbyElectorLock", "hdfs ActiveStandbyElectorLock", "HDFS"},
		{"hbase.master", "/hbase/master", "master", "hbase master", "HBase"},
		{"solr.overseer", "/overseer_elect/election/72057594037927937-10.0.0.1:8983_solr-n_0000000001", "0000000001", "solr 0000000001", "Solr"},
	} {
		pv := &evict.Preview{Node: tc.node, Ephemeral: true, Session: 0x101, Recipe: tc.recipe, Participant: true,
			Holding: true, Racers: 2, Warnings: []string{"This is the leader's node: deleting it starts a new election."}}
		d := forceDeleteWith(t, pv)
		box := ansi.Strip(d.View(90))
		for _, want := range []string{"LEADER of " + tc.system + "'s election", "a new election: 2 session(s)", "Type \"" + tc.strong + "\" to force a new " + tc.system + " election"} {
			if !strings.Contains(box, want) {
				t.Errorf("%s: the dialog lacks %q:\n%s", tc.recipe, want, box)
			}
		}
		typeInto(d, tc.weak)
		if act, _ := d.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); act != nil || !strings.Contains(d.Err(), tc.strong) {
			t.Errorf("%s: %q confirmed a leader's delete (%#v, %q)", tc.recipe, tc.weak, act, d.Err())
		}
		typeInto(d, tc.strong)
		act, _ := d.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
		if ev, ok := act.(Evict); !ok || !ev.ForceLeader || ev.Preview != pv {
			t.Errorf("%s: %q did not ask for the leader's delete: %#v", tc.recipe, tc.strong, act)
		}
	}
	// A plain ephemeral lock's holder and a Solr candidate that waits: no
	// system leader, the usual confirmation, no ForceLeader.
	for _, pv := range []*evict.Preview{
		{Node: "/app/maintenance", Ephemeral: true, Recipe: "zookeeper.ephemeral-lock", Participant: true, Holding: true},
		{Node: "/overseer_elect/election/72057594037927938-10.0.0.2:8983_solr-n_0000000002", Ephemeral: true, Recipe: "solr.overseer", Participant: true},
	} {
		d := forceDeleteWith(t, pv)
		if box := ansi.Strip(d.View(90)); strings.Contains(box, "election:") || strings.Contains(box, "LEADER") {
			t.Errorf("%s is no system leader, but the dialog says so:\n%s", pv.Node, box)
		}
		typeInto(d, pv.SequenceSuffix())
		act, _ := d.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
		if ev, ok := act.(Evict); !ok || ev.ForceLeader {
			t.Errorf("%s: %#v", pv.Node, act)
		}
	}
}
