package zkview

import (
	"context"
	"errors"
	"github.com/zkscope/zkscope/zkview/fourlw"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// peerSession is a raw go-zookeeper session pinned to one member, with the
// local address of its connection (what the member sees as the client).
type peerSession struct {
	conn  *zk.Conn
	mu    sync.Mutex
	local string
}

func (p *peerSession) Local() string { p.mu.Lock(); defer p.mu.Unlock(); return p.local }

// introspectOK asks until every member answered everything (a loaded test
// machine can make one answer miss its member timeout), failing after 15 s.
func introspectOK(t *testing.T, ask func() *Ensemble) *Ensemble {
	t.Helper()
	var e *Ensemble
	waitFor(t, "every member to answer", 15*time.Second, func() bool {
		e = ask()
		return e.Err() == nil
	})
	return e
}

// quietZK drops go-zookeeper's log lines (peers closing at the end of a test).
type quietZK struct{}

func (quietZK) Printf(string, ...any) {}

func openPeer(t *testing.T, addr string) *peerSession {
	t.Helper()
	p := &peerSession{}
	dialer := func(network, a string, timeout time.Duration) (net.Conn, error) {
		c, err := net.DialTimeout(network, a, timeout)
		if err == nil {
			p.mu.Lock()
			p.local = c.LocalAddr().String()
			p.mu.Unlock()
		}
		return c, err
	}
	conn, events, err := zk.Connect([]string{addr}, 6*time.Second, zk.WithLogInfo(false), zk.WithLogger(quietZK{}), zk.WithDialer(dialer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				p.conn = conn
				return p
			}
		case <-deadline:
			t.Fatalf("no session on %s", addr)
		}
	}
}

// TestIntrospectEnsemble asks a real 3-member ensemble, through a client
// with a chroot, about one session on each member (a data watch and an
// ephemeral node each), then with one member stopped.
func TestIntrospectEnsemble(t *testing.T) {
	cl := zktest.StartEnsemble(t, 3, zktest.Options{})
	chroot := "/introspect"
	var peers []*peerSession
	for i, s := range cl.Servers {
		p := openPeer(t, s.ClientAddr)
		if i == 0 {
			for _, n := range []string{chroot, chroot + "/watched", chroot + "/other"} {
				if _, err := p.conn.Create(n, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
					t.Fatal(err)
				}
			}
		}
		if _, err := p.conn.Sync(chroot); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := p.conn.GetW(chroot + "/watched"); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := p.conn.ChildrenW(chroot + "/other"); err != nil {
			t.Fatal(err)
		}
		if _, err := p.conn.Create(chroot+"/eph-"+strconv.Itoa(i), nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		peers = append(peers, p)
	}
	c := dial(t, Config{Servers: cl.Addrs(), Chroot: chroot})

	// The ephemerals are committed everywhere before the question; the
	// per-member lists (connections, watches) are immediate.
	var e *Ensemble
	waitFor(t, "every ephemeral in every member's dump", 10*time.Second, func() bool {
		start := time.Now()
		e = c.Introspect(context.Background())
		if d := time.Since(start); d > DefaultMemberTimeout+time.Second {
			t.Fatalf("Introspect took %s", d)
		}
		if e.Err() != nil {
			return false
		}
		for i, p := range peers {
			if eph, ok := e.Ephemerals(p.conn.SessionID()); !ok || !slices.Contains(eph, "/eph-"+strconv.Itoa(i)) {
				return false
			}
		}
		return true
	})
	if err := e.Err(); err != nil {
		t.Fatalf("members: %v", err)
	}
	start := time.Now()
	c.Introspect(context.Background())
	t.Logf("Introspect of 3 members (4 words each, concurrently): %s", time.Since(start))
	modes := map[string]int{}
	for _, m := range e.Members {
		modes[m.Mode]++
		if !strings.HasPrefix(m.Version, "3.") || m.Srvr.NodeCount == 0 || m.Via["cons"] != "4lw" || !m.ConnsKnown || !m.WatchesKnown || !m.SessionsKnown {
			t.Errorf("member %s: %+v", m.Addr, m)
		}
	}
	if modes["leader"] != 1 || modes["follower"] != 2 || e.Leader() == nil {
		t.Errorf("modes %v", modes)
	}
	for i, p := range peers {
		sid := p.conn.SessionID()
		if addr, ok := e.ClientOf(sid); !ok || addr != p.Local() {
			t.Errorf("peer %d on %s: ClientOf(%#x) = %q %v, want %s", i, cl.Servers[i].ClientAddr, sid, addr, ok, p.Local())
		}
		if m, ok := e.MemberOf(sid); !ok || m != cl.Servers[i].ClientAddr {
			t.Errorf("peer %d: MemberOf = %q %v", i, m, ok)
		}
		if obs, known := e.WatchObserved(sid, "/watched"); !obs || !known {
			t.Errorf("peer %d: WatchObserved(/watched) = %v %v", i, obs, known)
		}
		// A children watch is never listed; nothing watches /other's data.
		if obs, known := e.WatchObserved(sid, "/other"); obs || !known {
			t.Errorf("peer %d: WatchObserved(/other) = %v %v", i, obs, known)
		}
		if alive, known := e.SessionAlive(sid); !alive || !known {
			t.Errorf("peer %d: SessionAlive = %v %v", i, alive, known)
		}
	}
	if w := e.Watchers("/watched"); len(w) != 3 {
		t.Errorf("Watchers(/watched) = %x", w)
	}
	if alive, known := e.SessionAlive(0x7fff000000000001); alive || !known {
		t.Errorf("an unknown session: alive %v known %v", alive, known)
	}
	if addr, ok := e.ClientOf(c.SessionID()); !ok || addr == "" {
		t.Errorf("our own session not found: %q", addr)
	}

	// A stopped member (SIGSTOP: it accepts but never answers) costs one
	// member timeout, and what it would have said becomes unknown.
	stopped := cl.Servers[2]
	if err := stopped.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopped.Resume() })
	start = time.Now()
	e = c.Introspect(context.Background())
	took := time.Since(start)
	t.Logf("Introspect with a stopped member: %s", took)
	if took > DefaultMemberTimeout+time.Second {
		t.Errorf("a stopped member stalled Introspect for %s", took)
	}
	for _, m := range e.Members {
		if (m.Addr == stopped.ClientAddr) != (m.Err != nil) {
			t.Errorf("member %s: err %v", m.Addr, m.Err)
		}
	}
	sid0 := peers[0].conn.SessionID()
	if obs, known := e.WatchObserved(sid0, "/watched"); !obs || !known {
		t.Errorf("with a member stopped, an observed watch: %v %v", obs, known)
	}
	// sid0's watches live on its own member, which answered: a watch it
	// does not list is known missing. A session of the stopped member: unknown.
	if obs, known := e.WatchObserved(sid0, "/other"); obs || !known {
		t.Errorf("with another member stopped, an unobserved watch of a session on a live member is known missing: %v %v", obs, known)
	}
	if obs, known := e.WatchObserved(peers[2].conn.SessionID(), "/other"); obs || known {
		t.Errorf("an unobserved watch of a session on the stopped member must be unknown: %v %v", obs, known)
	}
	if _, ok := e.ClientOf(sid0); !ok {
		t.Error("ClientOf a session on a live member")
	}
	if e.Err() == nil {
		t.Error("Err() is nil with a member stopped")
	}
	if err := stopped.Resume(); err != nil {
		t.Fatal(err)
	}
	checkDetailAndFailover(t, c, cl)
}

// checkDetailAndFailover asks the ensemble view's details (mntr, conf,
// wchs and the configuration), then kills the leader: the next snapshot
// shows it down and names the re-elected leader.
func checkDetailAndFailover(t *testing.T, c *Client, cl *zktest.Cluster) {
	t.Helper()
	detail := func() *Ensemble {
		return c.IntrospectWith(context.Background(), IntrospectOptions{Detail: true})
	}
	var before *Ensemble
	waitFor(t, "every member to answer every detail", 15*time.Second, func() bool {
		before = detail()
		for _, m := range before.Members {
			if m.Err != nil || !m.MntrKnown || !m.ConfKnown || !m.WchsKnown {
				return false
			}
		}
		return before.Err() == nil
	})
	if len(before.Members) != 3 || len(before.Config) != 3 {
		t.Fatalf("members %d, configuration %v", len(before.Members), before.Config)
	}
	roles := map[string]int{}
	for _, m := range before.Members {
		roles[m.Role()]++
		if s := cl.ByAddr(m.Addr); s == nil || int64(s.ID) != m.ID {
			t.Errorf("member %s: myid %d", m.Addr, m.ID)
		}
		if m.Epoch() == 0 || m.Mntr.ApproximateDataSize == 0 || len(m.Refused()) != 0 || m.FromConfig {
			t.Errorf("member %s: epoch %d data %d wchs %+v refused %v", m.Addr, m.Epoch(), m.Mntr.ApproximateDataSize, m.Wchs, m.Refused())
		}
	}
	if roles["leader"] != 1 || roles["follower"] != 2 {
		t.Fatalf("roles %v", roles)
	}
	if servers, _, err := c.DynamicConfig(); err != nil || len(servers) != 3 {
		t.Errorf("/zookeeper/config: %v %v", servers, err)
	}
	old := cl.ByAddr(before.Leader().Addr)
	old.Kill()
	var after *Ensemble
	// A new leader, and the other members answering: on a loaded machine
	// a live member can miss one answer's timeout, which is a change of
	// its own ("went down"), not the one checked here.
	waitFor(t, "a new leader", 30*time.Second, func() bool {
		after = detail()
		l := after.Leader()
		if l == nil || l.Addr == old.ClientAddr {
			return false
		}
		for _, m := range after.Members {
			if m.Addr != old.ClientAddr && m.Err != nil {
				return false
			}
		}
		return true
	})
	changes := after.Changes(before)
	want := []string{old.ClientAddr + " went down", "new leader: " + after.Leader().Addr}
	if !slices.Equal(changes, want) {
		t.Errorf("changes %q, want %q", changes, want)
	}
	if m := after.memberByAddr(old.ClientAddr); m == nil || m.Role() != RoleDown {
		t.Errorf("killed leader: %+v", m)
	}
}

// TestIntrospectSharedChroot checks the chroot mapping against the shared
// server: the caller's own data watch, seen in its own view of paths.
func TestIntrospectSharedChroot(t *testing.T) {
	cl := zktest.Shared(t)
	base := zktest.Path(t)
	raw := dial(t, Config{Servers: cl.Addrs()})
	zktest.MakePath(t, raw.Conn(), base+"/node")
	c := dial(t, Config{Servers: cl.Addrs(), Chroot: base})
	if _, _, _, err := c.Conn().GetW(c.Abs("/node")); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.Conn().ExistsW(c.Abs("/")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Conn().Create(c.Abs("/mine"), nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	e := introspectOK(t, func() *Ensemble { return c.Introspect(context.Background()) })
	sid := c.SessionID()
	for _, p := range []string{"/node", "/"} {
		if obs, known := e.WatchObserved(sid, p); !obs || !known {
			t.Errorf("WatchObserved(%s) = %v %v", p, obs, known)
		}
	}
	if obs, _ := e.WatchObserved(sid, base+"/node"); obs {
		t.Error("a server path was taken as a view path")
	}
	if eph, ok := e.Ephemerals(sid); !ok || !slices.Equal(eph, []string{"/mine"}) {
		t.Errorf("Ephemerals = %v %v", eph, ok)
	}
	if _, ok := e.ClientOf(sid); !ok {
		t.Error("ClientOf our own session")
	}
	if e.Members[0].Mode != "standalone" {
		t.Errorf("mode %q", e.Members[0].Mode)
	}
}

// TestIntrospectNoWhitelist runs against a server with the default
// whitelist (srvr only): the words are refused with a typed error that says
// how to enable them, and the AdminServer answers instead when configured.
func TestIntrospectNoWhitelist(t *testing.T) {
	cl := zktest.StartStandalone(t, zktest.Options{NoWhitelist: true})
	s := cl.Servers[0]
	ctx := context.Background()
	_, err := fourlw.FourLetterWord(ctx, nil, s.ClientAddr, "cons", time.Second)
	var re *fourlw.WordRefusedError
	if !errors.As(err, &re) || re.Word != "cons" || re.Addr != s.ClientAddr || !errors.Is(err, fourlw.ErrWordRefused) {
		t.Fatalf("cons: %v", err)
	}
	for _, want := range []string{"4lw.commands.whitelist=srvr,mntr,cons,wchp,wchc,dump,conf,wchs", "zoo.cfg", "AdminServer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %s", want, err)
		}
	}

	base := "/nowl"
	p := openPeer(t, s.ClientAddr)
	if _, err := p.conn.Create(base, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := p.conn.GetW(base); err != nil {
		t.Fatal(err)
	}
	if _, err := p.conn.Create(base+"/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	sid := p.conn.SessionID()

	// Without an AdminServer: the role (srvr is allowed) but nothing else.
	c := dial(t, Config{Servers: cl.Addrs()})
	e := c.Introspect(ctx)
	m := e.Members[0]
	if m.Mode != "standalone" || m.Err != nil {
		t.Errorf("member: mode %q err %v", m.Mode, m.Err)
	}
	if !errors.Is(e.Err(), fourlw.ErrWordRefused) || !strings.Contains(e.Err().Error(), "4lw.commands.whitelist=") {
		t.Errorf("Err() = %v", e.Err())
	}
	if obs, known := e.WatchObserved(sid, base); obs || known {
		t.Errorf("refused: WatchObserved = %v %v, want unknown", obs, known)
	}
	if _, ok := e.ClientOf(sid); ok {
		t.Error("refused: ClientOf found something")
	}
	if _, known := e.SessionAlive(0x7fff000000000001); known {
		t.Error("refused: session list claimed complete")
	}

	// With the AdminServer: the same questions answered over HTTP.
	_, port, _ := net.SplitHostPort(s.AdminAddr)
	adminPort, _ := strconv.Atoi(port)
	ca := dial(t, Config{Servers: cl.Addrs(), AdminPort: adminPort})
	e = introspectOK(t, func() *Ensemble { return ca.Introspect(ctx) })
	m = e.Members[0]
	if m.Mode != "standalone" || m.Via["cons"] != "admin" || m.Via["wchp"] != "admin" || m.Via["dump"] != "admin" || m.Via["srvr"] != "4lw" {
		t.Errorf("member: mode %q via %v", m.Mode, m.Via)
	}
	if addr, ok := e.ClientOf(sid); !ok || addr != p.Local() {
		t.Errorf("ClientOf = %q %v, want %s", addr, ok, p.Local())
	}
	if obs, known := e.WatchObserved(sid, base); !obs || !known {
		t.Errorf("WatchObserved = %v %v", obs, known)
	}
	if eph, ok := e.Ephemerals(sid); !ok || !slices.Equal(eph, []string{base + "/eph"}) {
		t.Errorf("Ephemerals = %v %v", eph, ok)
	}
	if alive, known := e.SessionAlive(sid); !alive || !known {
		t.Errorf("SessionAlive = %v %v", alive, known)
	}

	// The AdminServer client on its own, ids exact above 2^53.
	a := fourlw.AdminServer{URL: "http://" + s.AdminAddr}
	conns, err := a.Connections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, cn := range conns {
		found = found || (cn.SessionID == sid && cn.HasSession)
	}
	if !found || sid < 1<<53 {
		t.Errorf("connections %+v lack %#x", conns, sid)
	}
	if _, err := a.Leader(ctx); !fourlw.IsAdminError(err) {
		t.Errorf("leader on a standalone server: %v, want the AdminServer's own error", err)
	}

	// A member that accepts but never answers (stopped): the context ends
	// the word long before its timeout.
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	defer s.Resume()
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = fourlw.FourLetterWord(cctx, nil, s.ClientAddr, "srvr", 10*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("stopped member: %v after %s", err, time.Since(start))
	}
}

// TestIntrospectIPv6 connects a peer over IPv6 ([::1]) to a real server
// listening on every address: cons, dump and the AdminServer report its
// address as "[::1]:port".
func TestIntrospectIPv6(t *testing.T) {
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	} else {
		ln.Close()
	}
	cl := zktest.StartStandalone(t, zktest.Options{Extra: []string{"clientPortAddress=::"}})
	s := cl.Servers[0]
	_, port, _ := net.SplitHostPort(s.ClientAddr)
	v6 := net.JoinHostPort("::1", port)
	p := openPeer(t, v6)
	base := zktest.Path(t)
	zktest.MakePath(t, p.conn, base)
	if _, _, _, err := p.conn.GetW(base); err != nil {
		t.Fatal(err)
	}
	sid := p.conn.SessionID()
	if !strings.HasPrefix(p.Local(), "[::1]:") {
		t.Fatalf("peer is not on IPv6: %s", p.Local())
	}
	_, aport, _ := net.SplitHostPort(s.AdminAddr)
	adminPort, _ := strconv.Atoi(aport)
	for _, servers := range [][]string{{v6}, {s.ClientAddr}} {
		e := introspectOK(t, func() *Ensemble {
			return IntrospectServers(context.Background(), servers, "", adminPort, IntrospectOptions{})
		})
		if addr, ok := e.ClientOf(sid); !ok || addr != p.Local() {
			t.Errorf("asked at %s: ClientOf = %q %v, want %s", servers[0], addr, ok, p.Local())
		}
		if obs, known := e.WatchObserved(sid, base); !obs || !known {
			t.Errorf("asked at %s: WatchObserved = %v %v", servers[0], obs, known)
		}
	}
	conns, err := fourlw.AdminServer{URL: "http://" + s.AdminAddr}.Connections(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range conns {
		found = found || (c.SessionID == sid && c.Addr == p.Local())
	}
	if !found {
		t.Errorf("AdminServer connections %+v lack %s", conns, p.Local())
	}
	out, err := fourlw.FourLetterWord(context.Background(), nil, v6, "cons", time.Second)
	t.Logf("cons over IPv6:\n%s", out)
	if err != nil {
		t.Fatal(err)
	}
}

// TestIntrospectTLS asks a member on its TLS client port (client
// certificate required): the words go over TLS like the session.
func TestIntrospectTLS(t *testing.T) {
	zktest.Require(t)
	m, err := zktest.GenerateTLS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cl := zktest.StartStandalone(t, zktest.Options{Secure: m.ServerFiles("need")})
	tc := TLSConfig{CAFile: m.CAFile, CertFile: m.ClientCert, KeyFile: m.ClientKey, ServerName: m.ServerName}
	c := dial(t, Config{Servers: []string{cl.Servers[0].SecureAddr}, TLS: &tc})
	if _, _, _, err := c.Conn().GetW("/"); err != nil {
		t.Fatal(err)
	}
	e := introspectOK(t, func() *Ensemble { return c.Introspect(context.Background()) })
	if e.Members[0].Mode != "standalone" {
		t.Errorf("mode %q", e.Members[0].Mode)
	}
	if _, ok := e.ClientOf(c.SessionID()); !ok {
		t.Error("ClientOf our own session over TLS")
	}
	if obs, known := e.WatchObserved(c.SessionID(), "/"); !obs || !known {
		t.Errorf("WatchObserved = %v %v", obs, known)
	}
}
