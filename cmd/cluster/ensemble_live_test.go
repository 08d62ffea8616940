package cluster_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/ensemble"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestEnsembleFailoverLive: on a real 3-member ensemble `ensemble --json`
// reports one leader and two followers; the leader killed, it reports
// that member down and another leading; the ensemble view, fed the
// members' real answers as its refreshes take them, marks the member down
// and the re-elected leader, and lists both changes.
func TestEnsembleFailoverLive(t *testing.T) {
	cl := zktest.StartEnsemble(t, 3, zktest.Options{})
	roles := func() map[string]string {
		out, err := cmdtest.Run(t, "-s", cl.ConnectString(), "ensemble", "--json")
		if err != nil {
			t.Fatal(err, out)
		}
		var doc struct{ Members []struct{ Addr, Role string } }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err, out)
		}
		r := map[string]string{}
		for _, m := range doc.Members {
			r[m.Addr] = m.Role
		}
		return r
	}
	count := func(r map[string]string, role string) (n int) {
		for _, v := range r {
			if v == role {
				n++
			}
		}
		return n
	}
	if r := roles(); len(r) != 3 || count(r, "leader") != 1 || count(r, "follower") != 2 {
		t.Fatalf("roles before: %v", r)
	}

	st := themes.New(cmdtest.Must(themes.Pick("dark", true, false)))
	view := ensemble.New(&st)
	view.SetSize(200, 20)
	snap := func() *zkview.Ensemble {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return zkview.IntrospectConfig(ctx, zkview.Config{Servers: cl.Addrs()}, zkview.IntrospectOptions{Detail: true})
	}
	view.SetEnsemble(snap())
	old := cl.Leader()
	if old == nil {
		t.Fatal("no leader")
	}
	old.Kill()

	deadline := time.Now().Add(90 * time.Second)
	// The view lists the latest few changes: the members still electing
	// may go down and come back in between (more of them on a loaded
	// machine), so each change is looked for in every refresh seen.
	var screen, seen string
	for {
		view.SetEnsemble(snap()) // one refresh of the view
		screen = ansi.Strip(view.View())
		seen += screen
		if strings.Contains(screen, "new leader: ") || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond) // the view's next refresh, polling with a deadline
	}
	leader := cl.Leader()
	if leader == nil || leader == old {
		t.Fatalf("no new leader:\n%s", screen)
	}
	if !strings.Contains(seen, old.ClientAddr+" went down") {
		t.Errorf("no refresh listed %q; the last:\n%s", old.ClientAddr+" went down", screen)
	}
	for _, want := range []string{"new leader: " + leader.ClientAddr, "◀ down", "◀ new leader"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the view lacks %q:\n%s", want, screen)
		}
	}
	if r := roles(); r[old.ClientAddr] != "down" || r[leader.ClientAddr] != "leader" || count(r, "follower") != 1 {
		t.Errorf("roles after: %v", r)
	}
}
