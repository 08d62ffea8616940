package dialog

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// ForceDelete shows what force-deleting a node of the queue would do (the
// preview, read in a command) and asks for its sequence number, typed.
// A system's leader node (Kafka's controller, HDFS's active lock, HBase's
// master, Solr's overseer) says that a new election follows and asks for
// the system's name and the node's ("kafka controller"): the dialog's
// --force-leader.
type ForceDelete struct {
	lockBase
	target  lockops.Participant
	label   string
	id      uint64 // the preview's request id
	preview *evict.Preview
	seq     textinput.Model
	view    LockView
}

// NewForceDelete asks about force-deleting target (labelled label); id is
// the request id of the preview read the lock pane started.
func NewForceDelete(st *themes.Styles, keys common.LockKeyMap, target lockops.Participant, label string, id uint64, view LockView) *ForceDelete {
	in := newLockInput("sequence number")
	in.SetWidth(14)
	return &ForceDelete{lockBase: lockBase{st: st, keys: keys}, target: target, label: label, id: id, seq: in, view: view}
}

// ID implements [Dialog].
func (d *ForceDelete) ID() string { return "force-delete" }

// Init focuses the sequence number.
func (d *ForceDelete) Init() tea.Cmd { return d.seq.Focus() }

// Preview is what the preview read said (nil until it came).
func (d *ForceDelete) Preview() *evict.Preview { return d.preview }

// Update implements [Dialog]: the preview's reply, and keys (⏎ deletes
// once the exact sequence number is typed; esc cancels).
func (d *ForceDelete) Update(msg tea.Msg) (Action, tea.Cmd) {
	switch msg := msg.(type) {
	case EvictPreviewMsg:
		if msg.ID != d.id {
			return nil, nil
		}
		if msg.Err != nil {
			return d.close(EvictUnreadable{Node: msg.Node, Err: msg.Err}), nil
		}
		d.preview = msg.Preview
		if d.preview.ForcesElection() {
			d.seq.Placeholder = "system node"
			d.seq.SetWidth(max(14, len(d.want())+2))
		}
		return nil, nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, d.keys.Cancel):
			return d.close(LockCancelled{Note: "Cancelled; nothing was deleted."}), nil
		case key.Matches(msg, d.keys.Confirm):
			if d.preview == nil {
				return nil, nil
			}
			want, leader := d.want(), d.preview.ForcesElection()
			if strings.TrimSpace(d.seq.Value()) != want {
				d.err = "Type the sequence number " + want + " exactly to confirm."
				if leader {
					d.err = "Type \"" + want + "\" exactly to force a new " + d.system() + " election."
				}
				return nil, nil
			}
			return d.close(Evict{Preview: d.preview, Label: d.label, ForceLeader: leader}), nil
		}
		var cmd tea.Cmd
		d.seq, cmd = d.seq.Update(msg)
		d.err = ""
		return nil, cmd
	}
	return nil, nil
}

// View implements [Dialog].
func (d *ForceDelete) View(w int) string {
	st, inner := d.st, w-4
	title := "Force-delete " + d.label
	pv := d.preview
	if pv == nil {
		body := []string{st.Muted.Render("Reading " + printable.String(common.LastElem(d.target.Node)) + "…"), "", d.hint("esc", "cancel")}
		return d.lockFrame(w, title, body, 2)
	}
	owner := st.Error.Render("PERSISTENT (no session)")
	if pv.Ephemeral {
		owner = "session " + lockops.FormatSession(pv.Session) + clientSuffix(pv.Client)
	}
	role := "waiting"
	switch {
	case pv.ForcesElection():
		role = st.Error.Render("LEADER of " + d.system() + "'s election")
	case pv.Holding:
		role = st.Warning.Render("HOLDING the lock")
	}
	body := []string{
		d.field("node", common.ShortName(common.LastElem(pv.Node), inner-9)),
		d.field("owner", owner),
		d.field("data", common.DataSummary(pv.Data)),
		d.field("role", role+fmt.Sprintf(", node age %s", common.FormatAge(pv.HeldFor))),
		d.field("version", fmt.Sprintf("%d (czxid 0x%x)", pv.Version, pv.Czxid)),
	}
	switch {
	case len(pv.NextHolders) > 0:
		body = append(body, d.field("next", strings.Join(d.view.NodeRefs(pv.NextHolders), ", ")+" gets the lock"))
	case pv.Holding && pv.Racers > 0:
		body = append(body, d.field("next", fmt.Sprintf("a new election: %d session(s) watching it race to create it", pv.Racers)))
	case pv.ForcesElection():
		body = append(body, d.field("next", "a new election once a candidate tries (none watches it now)"))
	case pv.Holding:
		body = append(body, d.field("next", "nobody is waiting: the lock becomes free"))
	default:
		body = append(body, d.field("next", d.view.WaiterEvictNext(pv.Node)))
	}
	body = append(body, "")
	for _, w := range pv.Warnings {
		body = append(body, wrapped(st.Warning, "⚠ "+w, inner)...)
	}
	if pv.ForcesElection() {
		body = append(body, "", st.Prompt.Render("Type \""+printable.String(d.want())+"\" to force a new "+d.system()+" election: ")+d.seq.View(),
			"", d.hint("⏎", "delete and start a new election (only if unchanged)")+"   "+d.hint("esc", "cancel"))
		return d.lockFrame(w, title, body, 4)
	}
	body = append(body, "",
		st.Prompt.Render("Type "+printable.String(pv.SequenceSuffix())+" to confirm: ")+d.seq.View(),
		"", d.hint("⏎", "delete (only if unchanged)")+"   "+d.hint("esc", "cancel"))
	return d.lockFrame(w, title, body, 4)
}

// want is what confirms the delete: the sequence number, or for a
// system's leader node the system and the node ([evict.Preview.LeaderConfirmation]).
func (d *ForceDelete) want() string {
	if c := d.preview.LeaderConfirmation(); c != "" {
		return c
	}
	return d.preview.SequenceSuffix()
}

// system is the name of the system whose leader the node is.
func (d *ForceDelete) system() string { return lockops.Kind(d.preview.Recipe).System() }
