package dialog

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

func styles(t *testing.T) *themes.Styles {
	t.Helper()
	p, err := themes.Pick(themes.Dark, true, false)
	if err != nil {
		t.Fatal(err)
	}
	st := themes.New(p)
	return &st
}

// TestOverlayStack: the front dialog takes the keys and is drawn last;
// a dialog that is done leaves the stack; its action comes back.
func TestOverlayStack(t *testing.T) {
	st := styles(t)
	var o Overlay
	o.Open(NewDelete(st, common.DefaultKeyMap(), "/a", 3))
	o.Open(NewLost(st, common.DefaultLockKeyMap(), "/locks/x", "session expired", false))
	if o.Len() != 2 || o.Front().ID() != "lost" {
		t.Fatalf("front %q of %d", o.Front().ID(), o.Len())
	}
	body := strings.TrimRight(strings.Repeat(strings.Repeat(" ", 80)+"\n", 30), "\n")
	if out := ansi.Strip(o.View(body, 80, 30, 60)); !strings.Contains(out, "Lock LOST") {
		t.Fatalf("the front dialog is not drawn:\n%s", out)
	}
	// y goes to the front dialog (the alert ignores it), not to the delete.
	if act, _ := o.Update(tea.KeyPressMsg{Code: 'y', Text: "y"}); act != nil || o.Len() != 2 {
		t.Fatalf("y reached the dialog underneath: %#v", act)
	}
	o.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if o.Len() != 1 || o.Front().ID() != "delete" {
		t.Fatalf("enter did not close the alert: %d open", o.Len())
	}
	act, _ := o.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if d, ok := act.(Delete); !ok || d.Path != "/a" || d.Version != 3 || o.Len() != 0 {
		t.Fatalf("y on the delete: %#v, %d open", act, o.Len())
	}
}

// TestCreateFormRefusals: a TTL type needs a TTL, and a TTL needs a TTL
// type; the form stays open with the reason.
func TestCreateFormRefusals(t *testing.T) {
	d := NewCreate(styles(t), common.DefaultKeyMap(), "/app", 40)
	d.Init()
	typeText := func(s string) {
		for _, r := range s {
			d.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	typeText("n1")
	d.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	d.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	typeText("10m")
	if act, _ := d.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); act != nil || !strings.Contains(d.Err(), "TTL type") {
		t.Fatalf("a TTL without a TTL type: %#v %q", act, d.Err())
	}
	d.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	for !common.IsTTL(d.Flags()) {
		d.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	}
	act, _ := d.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if c, ok := act.(Create); !ok || c.Path != "/app/n1" || c.TTL.Minutes() != 10 || !d.Done() {
		t.Fatalf("create: %#v", act)
	}
}
