package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/ui/dialog"
)

// fitView is the lock pane's side of a lock dialog, for these tests.
type fitView struct{}

func (fitView) Now() time.Time                   { return fixedTime }
func (fitView) NodeRefs(nodes []string) []string { return []string{"W1 (0000000055)"} }
func (fitView) WaiterEvictNext(string) string    { return "the next waiter re-checks" }

const fitNode = "/app/locks/orders/_c_6f1d2a40-94b7-4e0c-8a51-3c2d9e7b1f03-lock-0000000054"

// fitDialogs opens each dialog of the TUI, as its owner opens it, with
// what it shows filled in; keep is a line the dialog must show at once
// (what it asks for).
var fitDialogs = []struct {
	name string
	open func(m *Model) dialog.Dialog
	keep string
}{
	{"take", func(m *Model) dialog.Dialog {
		d := dialog.NewTake(m.st, m.keys.Lock, "/app/locks/orders", lockops.KindCuratorMutex, true,
			func(string, take.Options) (uint64, tea.Cmd) { return 9, func() tea.Msg { return nil } })
		d.Init()
		d.Update(dialog.TakePlanMsg{ID: 9, Plan: take.Plan{Kind: lockops.KindCuratorMutex, Library: lockops.Curator}})
		return d
	}, "⏎ take"},
	{"force-delete", func(m *Model) dialog.Dialog {
		d := dialog.NewForceDelete(m.st, m.keys.Lock, lockops.Participant{Node: fitNode}, "H1", 7, fitView{})
		d.Init()
		d.Update(dialog.EvictPreviewMsg{ID: 7, Node: fitNode, Preview: &evict.Preview{
			Node: fitNode, LockPath: "/app/locks/orders", Session: 0x1000000a1b2c0001, Ephemeral: true, Client: "10.0.3.11:50112",
			Data: []byte("alice@build7 zkscope pid 4242: deploy"), Czxid: 0x1f, HeldFor: 95 * time.Second,
			Recipe: "curator.mutex", Participant: true, Holding: true, NextHolders: []string{"n"},
			Warnings: []string{"The holder is NOT told: if it is still running it will go on as if it held the lock, while the next waiter takes it too. Stop the holder first, or use revoke if it is revocable."},
		}})
		return d
	}, "Type 0000000054 to confirm"},
	{"force-delete-leader", func(m *Model) dialog.Dialog {
		d := dialog.NewForceDelete(m.st, m.keys.Lock, lockops.Participant{Node: "/kafka/controller"}, "H1", 7, fitView{})
		d.Init()
		d.Update(dialog.EvictPreviewMsg{ID: 7, Node: "/kafka/controller", Preview: &evict.Preview{
			Node: "/kafka/controller", Ephemeral: true, Session: 0x101, Recipe: "kafka.controller", Participant: true,
			Holding: true, Racers: 2, Warnings: []string{"This is the leader's node: deleting it starts a new election."}}})
		return d
	}, `Type "kafka controller"`},
	{"revoke", func(m *Model) dialog.Dialog {
		return dialog.NewRevoke(m.st, m.keys.Lock, lockops.Participant{Node: fitNode, Session: 0x101, Client: "10.0.3.11:50112", Data: []byte("worker-2")}, "H1")
	}, "y/⏎ revoke"},
	{"quit-holding", func(m *Model) dialog.Dialog {
		return dialog.NewQuitHolding(m.st, m.keys.Lock, &take.Held{Path: "/app/locks/orders", Mode: lockops.ModeExclusive, Acquired: fixedTime.Add(-time.Minute)}, fitView{})
	}, "y/⏎ release and quit"},
	{"lost", func(m *Model) dialog.Dialog {
		return dialog.NewLost(m.st, m.keys.Lock, "/app/locks/orders", "The session expired: the servers deleted our node 0000000054 and another client may hold the lock now.", true)
	}, "⏎ understood"},
	{"rejoin", func(m *Model) dialog.Dialog {
		return dialog.NewRejoinOffer(m.st, m.keys.Lock, "/app/locks/orders", "The session expired while we waited: our node is gone.", take.Options{})
	}, "y/⏎ rejoin"},
	{"redis-take", func(m *Model) dialog.Dialog {
		return dialog.NewRedisTake(m.st, m.keys.Lock, "lock:orders:42", lockops.KindRedlock)
	}, "TTL:"},
	{"redis-evict", func(m *Model) dialog.Dialog {
		d := dialog.NewRedisEvict(m.st, m.keys.Lock, &redislock.EvictPreview{Key: "lock:orders:42", Recipe: lockops.KindRedlock,
			Token: "3f1c2a9e-77d1-4b8e-9a0c-5e2f7d6b1a44", TTL: 25 * time.Second,
			Holding: []string{"127.0.0.1:6379", "127.0.0.1:6380"}, Others: []string{"127.0.0.1:6381: no such key"}, Majority: true})
		d.Init()
		return d
	}, "to confirm:"},
	{"redis-quit", func(m *Model) dialog.Dialog {
		return dialog.NewRedisQuit(m.st, m.keys.Lock, "lock:orders:42")
	}, "⏎ release and quit"},
	{"problems", func(m *Model) dialog.Dialog {
		return dialog.NewProblems(m.st, m.keys.Lock, "Problems of W3", fitNode, []dialog.ProblemText{
			{Badge: "watch-missing", Detail: "waits on …0005, but no server lists session 0x1000000a1b2c0004 watching it: it may never wake up; the servers were asked 2s ago and every member answered"},
			{Badge: "persistent-lock-node", Detail: "a waiting node that is not ephemeral: no session will ever release it (zkscope evict " + fitNode + ")"}})
	}, "⏎ close"},
	{"delete", func(m *Model) dialog.Dialog { return dialog.NewDelete(m.st, m.keys, "/app/config", 3) }, "y delete"},
	{"delete-tree", func(m *Model) dialog.Dialog {
		return dialog.NewDeleteTree(m.st, m.keys, "/app/services", 2, 40, m.dialogWidth()-16)
	}, "confirm"},
	{"edit", func(m *Model) dialog.Dialog {
		return dialog.NewEdit(m.st, m.keys, "/app/config", 2, `{"name":"billing"}`, m.dialogWidth()-16)
	}, "⏎ save"},
	{"create", func(m *Model) dialog.Dialog {
		d := dialog.NewCreate(m.st, m.keys, "/app", m.dialogWidth()-16)
		d.Init()
		return d
	}, "⏎ save"},
}

// TestDialogsFitSmallest: at the smallest size the TUI draws (minWidth ×
// minHeight) every dialog fits the body: its whole box is on screen, what
// it asks for (the confirmation to type, its keys) shows at once, and
// pgdn/pgup scroll through all the rest. The take and force-delete dialogs
// are goldens.
func TestDialogsFitSmallest(t *testing.T) {
	for _, tc := range fitDialogs {
		t.Run(tc.name, func(t *testing.T) {
			m := fixture(t, minWidth, minHeight, "dark")
			d := tc.open(&m)
			// Every line the dialog has, drawn without a height limit.
			var want []string
			for _, l := range strings.Split(ansi.Strip(d.View(m.dialogWidth())), "\n") {
				if l = strings.Trim(l, "│ "); l != "" && !strings.ContainsAny(l, "╭╰") {
					want = append(want, l)
				}
			}
			m.dialogs.Open(d)
			box := dialogOnScreen(t, m)
			if !strings.Contains(box, tc.keep) {
				t.Errorf("%q is not in view:\n%s", tc.keep, box)
			}
			if tc.name == "take" || tc.name == "force-delete" {
				golden.RequireEqual(t, box)
			}
			seen := box
			for _, k := range []string{"pgup", "pgup", "pgup", "pgdown", "pgdown", "pgdown", "pgdown", "pgdown"} {
				m = step(t, m, keyMsg(k))
				b := dialogOnScreen(t, m)
				if !strings.Contains(b, tc.keep) {
					t.Errorf("%q went out of view on %s:\n%s", tc.keep, k, b)
				}
				seen += "\n" + b
			}
			for _, l := range want {
				if !strings.Contains(seen, l) {
					t.Errorf("scrolling never shows %q; seen:\n%s", l, seen)
				}
			}
		})
	}
}

// dialogOnScreen is the front dialog's box as the screen shows it; it
// fails unless the box's top and bottom edges are both on screen, within
// the body.
func dialogOnScreen(t *testing.T, m Model) string {
	t.Helper()
	lines := strings.Split(screen(m), "\n")
	w := m.dialogWidth()
	x := (m.width - w) / 2
	var box []string
	for _, l := range lines[bodyTop : bodyTop+m.height-chromeRows] {
		box = append(box, ansi.Cut(l, x, x+w))
	}
	top, bottom := -1, -1
	for i, l := range box {
		if strings.HasPrefix(l, "╭") && top < 0 {
			top = i
		}
		if strings.HasPrefix(l, "╰") {
			bottom = i
		}
	}
	if top < 0 || bottom < top {
		t.Fatalf("the dialog's box is cut (top %d, bottom %d):\n%s", top, bottom, strings.Join(lines, "\n"))
	}
	return strings.Join(box[top:bottom+1], "\n")
}
