package fourlw

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("fixture %s (regenerate: go test ./zkview -run TestCaptureFixtures -args -update): %v", name, err)
	}
	return string(b)
}

// TestParseFixtures parses the real replies captured from each role and
// checks that the words agree with each other and with the AdminServer.
func TestParseFixtures(t *testing.T) {
	for _, role := range fixtureRoles {
		t.Run(role, func(t *testing.T) {
			srvr, err := ParseSrvr(fixture(t, role+"-srvr.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if srvr.Mode != role || !strings.HasPrefix(srvr.Version, "3.") || srvr.NodeCount == 0 || srvr.Connections < 1 || srvr.LatencyMax < srvr.LatencyMin {
				t.Errorf("srvr: %+v", srvr)
			}
			if role != "standalone" && srvr.Zxid>>32 == 0 {
				t.Errorf("srvr zxid %#x has no epoch", srvr.Zxid)
			}

			mntr, err := ParseMntr(fixture(t, role+"-mntr.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if mntr.ServerState != role || mntr.Version != srvr.Version || mntr.ZnodeCount == 0 || mntr.EphemeralsCount == 0 || mntr.WatchCount < 2 || len(mntr.Values) < 50 {
				t.Errorf("mntr: state %q version %q znodes %d ephemerals %d watches %d values %d",
					mntr.ServerState, mntr.Version, mntr.ZnodeCount, mntr.EphemeralsCount, mntr.WatchCount, len(mntr.Values))
			}
			if role == "leader" && mntr.SyncedFollowers != 2 {
				t.Errorf("leader mntr: synced followers %d", mntr.SyncedFollowers)
			}

			conns, err := ParseCons(fixture(t, role+"-cons.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var sess *Conn
			sessionless := 0
			for i, c := range conns {
				if !strings.HasPrefix(c.Addr, "127.0.0.1:") {
					t.Errorf("cons addr %q", c.Addr)
				}
				if c.HasSession {
					sess = &conns[i]
				} else if c.SessionID == 0 {
					sessionless++
				}
			}
			if sess == nil || sessionless == 0 {
				t.Fatalf("cons: want a session and a session-less connection: %+v", conns)
			}
			if sess.Timeout != 6*time.Second || sess.Established.Year() < 2020 || sess.LastOp == "" || sess.Recved == 0 {
				t.Errorf("cons session: %+v", *sess)
			}
			sid := sess.SessionID
			base := ""
			wchc, err := ParseWchc(fixture(t, role+"-wchc.txt"))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range wchc[sid] {
				if strings.HasSuffix(p, "/absent") {
					base = strings.TrimSuffix(p, "/absent")
				}
			}
			if !strings.HasPrefix(base, "/fixture-") || !slices.Contains(wchc[sid], base) || len(wchc[sid]) != 2 {
				t.Fatalf("wchc for %#x: %v (children watches must not appear)", sid, wchc)
			}
			wchp, err := ParseWchp(fixture(t, role+"-wchp.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if len(wchp) != 2 || !slices.Equal(wchp[base], []int64{sid}) || !slices.Equal(wchp[base+"/absent"], []int64{sid}) {
				t.Errorf("wchp: %v", wchp)
			}

			dump, err := ParseDump(fixture(t, role+"-dump.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(dump.Ephemerals[sid], base+"/eph") {
				t.Errorf("dump ephemerals: %v", dump.Ephemerals)
			}
			if dump.Connections[sid] != sess.Addr {
				t.Errorf("dump connections: %v, cons says %s", dump.Connections, sess.Addr)
			}
			if !slices.Contains(dump.Sessions, sid) {
				t.Errorf("dump sessions %v lack %#x", dump.Sessions, sid)
			}
			switch role {
			case "follower":
				if len(dump.Sessions) != 3 || dump.Timeouts[sid] != 6*time.Second || len(dump.Ephemerals) != 3 {
					t.Errorf("follower dump: %+v", dump)
				}
			default:
				if dump.Expiry[sid].Year() < 2020 {
					t.Errorf("dump expiry: %v", dump.Expiry)
				}
			}

			// The AdminServer says the same, session ids exact above 2^53.
			ac, err := ParseAdminConnections([]byte(fixture(t, "admin-"+role+"-connections.json")))
			if err != nil {
				t.Fatal(err)
			}
			if len(ac) == 0 || ac[0].SessionID != sid || ac[0].Addr != sess.Addr || !ac[0].Established.Equal(sess.Established) {
				t.Errorf("admin connections %+v, cons %+v", ac, *sess)
			}
			aw, err := ParseAdminWatchesByPath([]byte(fixture(t, "admin-"+role+"-watches_by_path.json")))
			if err != nil {
				t.Fatal(err)
			}
			if len(aw) != len(wchp) || !slices.Equal(aw[base], wchp[base]) {
				t.Errorf("admin watches_by_path %v, wchp %v", aw, wchp)
			}
			ad, err := ParseAdminDump([]byte(fixture(t, "admin-"+role+"-dump.json")))
			if err != nil {
				t.Fatal(err)
			}
			if len(ad.Ephemerals) != len(dump.Ephemerals) || !slices.Equal(ad.Ephemerals[sid], dump.Ephemerals[sid]) {
				t.Errorf("admin dump %v, dump %v", ad.Ephemerals, dump.Ephemerals)
			}
			if role != "follower" && !slices.Contains(ad.Sessions, sid) {
				t.Errorf("admin dump sessions %v lack %#x", ad.Sessions, sid)
			}
			am, err := ParseAdminMonitor([]byte(fixture(t, "admin-"+role+"-monitor.json")))
			if err != nil {
				t.Fatal(err)
			}
			if am.ServerState != role || am.Version != srvr.Version || am.ZnodeCount == 0 {
				t.Errorf("admin monitor: %q %q %d", am.ServerState, am.Version, am.ZnodeCount)
			}
		})
	}
}

// TestParseIPv6Fixtures: a client connected over IPv6 is "[::1]:port" in
// cons, dump and the AdminServer alike.
func TestParseIPv6Fixtures(t *testing.T) {
	conns, err := ParseCons(fixture(t, "ipv6-cons.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var sess *Conn
	for i := range conns {
		if conns[i].HasSession {
			sess = &conns[i]
		}
	}
	if sess == nil || !strings.HasPrefix(sess.Addr, "[::1]:") {
		t.Fatalf("cons: %+v", conns)
	}
	dump, err := ParseDump(fixture(t, "ipv6-dump.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if dump.Connections[sess.SessionID] != sess.Addr {
		t.Errorf("dump connections %v, cons %s", dump.Connections, sess.Addr)
	}
	ac, err := ParseAdminConnections([]byte(fixture(t, "admin-ipv6-connections.json")))
	if err != nil {
		t.Fatal(err)
	}
	if len(ac) != 1 || ac[0].Addr != sess.Addr || ac[0].SessionID != sess.SessionID {
		t.Errorf("admin connections %+v, cons %+v", ac, *sess)
	}
}

func TestRefusalFixture(t *testing.T) {
	err := refusal("127.0.0.1:2181", "cons", fixture(t, "refused-cons.txt"))
	var re *WordRefusedError
	if !errors.As(err, &re) || re.Word != "cons" || !errors.Is(err, ErrWordRefused) {
		t.Fatalf("refusal: %v", err)
	}
	for _, want := range []string{"4lw.commands.whitelist=srvr,mntr,cons,wchp,wchc,dump,conf,wchs", "AdminServer", "cons"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal message lacks %q: %s", want, err)
		}
	}
}

func TestParseConsLines(t *testing.T) {
	for _, tc := range []struct {
		line    string
		addr    string
		sid     int64
		session bool
		bad     bool
	}{
		{line: " /127.0.0.1:44006[1](queued=0,recved=6,sent=6,sid=0x100004c7fea0000,lop=GETC,est=1795420601472,to=6000,lcxid=0x5)",
			addr: "127.0.0.1:44006", sid: 0x100004c7fea0000, session: true},
		{line: " /127.0.0.1:44032[0](queued=0,recved=1,sent=0)", addr: "127.0.0.1:44032"},
		// Java before 14 prints IPv6 without brackets, in full form.
		{line: " /0:0:0:0:0:0:0:1:53412[1](queued=0,recved=3,sent=3,sid=0x200000000000001,lop=PING,est=1,to=4000)",
			addr: "[::1]:53412", sid: 0x200000000000001, session: true},
		// Java 14+ brackets them.
		{line: " /[0:0:0:0:0:0:0:1]:53413[1](queued=0,recved=3,sent=3,sid=0x2,lop=PING,est=1,to=4000)",
			addr: "[::1]:53413", sid: 2, session: true},
		{line: " zk-client.example/10.1.2.3:40000[1](queued=1,recved=2,sent=1,sid=0xffffffffffffffff)",
			addr: "10.1.2.3:40000", sid: -1, session: true},
		{line: " /fe80:0:0:0:0:0:0:1%eth0:2000[0](queued=0,recved=1,sent=0)", addr: "[fe80::1%eth0]:2000"},
		{line: "garbage", bad: true},
		{line: " /127.0.0.1[0](queued=0)", bad: true},
		{line: " /127.0.0.1:1[1](sid=0xZZ)", bad: true},
	} {
		got, err := ParseCons(tc.line)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: want an error, got %+v", tc.line, got)
			}
			continue
		}
		if err != nil || len(got) != 1 {
			t.Errorf("%q: %v %+v", tc.line, err, got)
			continue
		}
		if c := got[0]; c.Addr != tc.addr || c.SessionID != tc.sid || c.HasSession != tc.session {
			t.Errorf("%q: got %+v", tc.line, c)
		}
	}
}

func TestParseSrvrRejectsOther(t *testing.T) {
	if _, err := ParseSrvr("This ZooKeeper instance is not currently serving requests"); err == nil {
		t.Error("want an error")
	}
	if _, err := ParseMntr(""); err == nil {
		t.Error("mntr: want an error")
	}
	if _, err := ParseWchp("\t0x1\n"); err == nil {
		t.Error("wchp: an id without a path must be an error")
	}
}

// fuzzSeeds adds every fixture reply of word (and a few odd inputs).
func fuzzSeeds(f *testing.F, word string) {
	for _, role := range append(fixtureRoles, "ipv6") {
		if b, err := os.ReadFile(filepath.Join(fixtureDir, role+"-"+word+".txt")); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{"", "\n", "\t", "(", ")", "0x", "/:(", " /[::1]:1[1](sid=0x1)", "x:\n\ty", "Global Sessions(1):\n0x1", "ip: /1:2 sessionId: 0x"} {
		f.Add(s)
	}
}

func FuzzParseCons(f *testing.F) {
	fuzzSeeds(f, "cons")
	f.Fuzz(func(t *testing.T, s string) {
		conns, _ := ParseCons(s)
		for _, c := range conns {
			if !c.HasSession && c.SessionID != 0 {
				t.Fatalf("session id without a session: %+v", c)
			}
			if c.Addr == "" {
				t.Fatalf("connection without an address: %+v", c)
			}
		}
	})
}

func FuzzParseWchp(f *testing.F) {
	fuzzSeeds(f, "wchp")
	fuzzSeeds(f, "wchc")
	f.Fuzz(func(t *testing.T, s string) {
		ParseWchp(s)
		ParseWchc(s)
	})
}

func FuzzParseDump(f *testing.F) {
	fuzzSeeds(f, "dump")
	f.Fuzz(func(t *testing.T, s string) {
		ParseDump(s)
	})
}

func FuzzParseSrvr(f *testing.F) {
	fuzzSeeds(f, "srvr")
	f.Fuzz(func(t *testing.T, s string) {
		ParseSrvr(s)
	})
}

func FuzzParseMntr(f *testing.F) {
	fuzzSeeds(f, "mntr")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMntr(s)
		if err == nil && m.Values == nil {
			t.Fatal("nil values without an error")
		}
	})
}
