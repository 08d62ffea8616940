package fourlw

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

var updateFixtures = flag.Bool("update", false, "rewrite testdata/4lw from real servers (TestCaptureFixtures)")

// fixtureDir holds real replies of the words and AdminServer commands.
var fixtureDir = filepath.Join("testdata", "4lw")

// fixtureWords are the four-letter words captured into testdata/4lw.
var fixtureWords = []string{"srvr", "mntr", "cons", "wchp", "wchc", "dump", "conf", "wchs"}

// fixtureAdmin are the AdminServer commands captured into testdata/4lw.
var fixtureAdmin = []string{"connections", "watches_by_path", "dump", "leader", "monitor"}

// fixtureRoles are the member roles captured.
var fixtureRoles = []string{"standalone", "leader", "follower"}

// TestCaptureFixtures regenerates the parser fixtures from real servers:
//
//	go test ./zkview -run TestCaptureFixtures -count=1 -args -update
//
// It starts a standalone server, a 3-member ensemble and a server with the
// default whitelist; gives each member a session with a data watch, an
// exists watch, a children watch and an ephemeral node under
// /fixture-<name> (one more over IPv6: ipv6-cons/dump.txt); and saves each word's reply as <role>-<word>.txt and each
// AdminServer reply as admin-<role>-<command>.json.
func TestCaptureFixtures(t *testing.T) {
	if !*updateFixtures {
		t.Skip("run with -args -update to rewrite testdata/4lw")
	}
	if err := os.MkdirAll(fixtureDir, 0o755); err != nil {
		t.Fatal(err)
	}
	save := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(fixtureDir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	capture := func(role string, s *zktest.Server) {
		t.Helper()
		for _, w := range fixtureWords {
			out, err := zktest.FourLetterWord(s.ClientAddr, w, 5*time.Second)
			if err != nil {
				t.Fatalf("%s %s: %v", role, w, err)
			}
			save(fmt.Sprintf("%s-%s.txt", role, w), out)
		}
		for _, cmd := range fixtureAdmin {
			resp, err := http.Get("http://" + s.AdminAddr + "/commands/" + cmd)
			if err != nil {
				t.Fatalf("%s admin %s: %v", role, cmd, err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || !json.Valid(b) {
				t.Fatalf("%s admin %s: not JSON (%v): %q", role, cmd, err, b)
			}
			save(fmt.Sprintf("admin-%s-%s.json", role, cmd), string(b))
		}
	}
	session := func(addr, name string) {
		t.Helper()
		conn, events, err := zk.Connect([]string{addr}, 6*time.Second, zk.WithLogInfo(false))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(conn.Close)
		deadline := time.After(15 * time.Second)
	wait:
		for {
			select {
			case ev := <-events:
				if ev.State == zk.StateHasSession {
					break wait
				}
			case <-deadline:
				t.Fatalf("no session on %s", addr)
			}
		}
		base := "/fixture-" + name
		if _, err := conn.Create(base, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatal(err)
		}
		if _, err := conn.Create(base+"/eph", []byte("x"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := conn.GetW(base); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := conn.ExistsW(base + "/absent"); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := conn.ChildrenW(base); err != nil {
			t.Fatal(err)
		}
	}

	st := zktest.StartStandalone(t, zktest.Options{})
	session(st.Servers[0].ClientAddr, "standalone")
	capture("standalone", st.Servers[0])

	// A client over IPv6 (the server listens on every address).
	v6 := zktest.StartStandalone(t, zktest.Options{Extra: []string{"clientPortAddress=::"}})
	_, port, _ := net.SplitHostPort(v6.Servers[0].ClientAddr)
	session(net.JoinHostPort("::1", port), "ipv6")
	for _, w := range []string{"cons", "dump"} {
		out, err := zktest.FourLetterWord(v6.Servers[0].ClientAddr, w, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		save("ipv6-"+w+".txt", out)
	}
	resp, err := http.Get("http://" + v6.Servers[0].AdminAddr + "/commands/connections")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	save("admin-ipv6-connections.json", string(b))

	ens := zktest.StartEnsemble(t, 3, zktest.Options{})
	for _, s := range ens.Servers {
		session(s.ClientAddr, fmt.Sprintf("m%d", s.ID))
	}
	leader := ens.Leader()
	if leader == nil {
		t.Fatal("no leader")
	}
	capture("leader", leader)
	for _, s := range ens.Servers {
		if s != leader {
			capture("follower", s)
			break
		}
	}

	nw := zktest.StartStandalone(t, zktest.Options{NoWhitelist: true})
	out, err := zktest.FourLetterWord(nw.Servers[0].ClientAddr, "cons", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	save("refused-cons.txt", out)
}
