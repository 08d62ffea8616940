package zkview

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/zkscope/zkscope/zkview/fourlw"
)

// DefaultMemberTimeout bounds how long [Client.Introspect] waits for one
// member: a member that is down or stopped must not stall the others.
const DefaultMemberTimeout = 2 * time.Second

// Ensemble is what the servers said about themselves, asked of every
// configured member at once.
//
// Watches are data watches only (getData and exists): the server's `wchp`,
// `wchc` and AdminServer `watches*` never list getChildren watches, so a
// session waiting with a children watch is never "observed".
type Ensemble struct {
	Members []Member
	// Chroot is the asking client's chroot ("" for none). Members speak in
	// server (absolute) paths; the methods below take and return the
	// caller's view of paths.
	Chroot string
	// At is when the members were asked (zkscope's clock), End when the
	// last answer came.
	At, End time.Time
	// Config is the ensemble's membership from the members' `conf` (with
	// [IntrospectOptions.Detail]) or the /zookeeper/config node
	// ([Client.DynamicConfig]); nil when no member said.
	Config []fourlw.ConfServer
	// Self is the asking client's session ([Client.Introspect]; 0 when
	// asked without one): [Ensemble.Watchers] leaves its watches out (the
	// TUI's reads watch the nodes they show).
	Self int64
	// Own are zkscope's other sessions of that client: the persistent
	// watches' (the tree's, the lock pane's, `locks --watch`'s) and the
	// multi-read one's, while open. Their watches are left out of every
	// member's Watches, so they are never taken for a waiter's.
	Own []int64
}

// Member is one server's answers.
type Member struct {
	Addr    string // client address as configured
	Mode    string // "leader", "follower", "standalone", "observer", "" when unknown
	Version string // e.g. "3.8.0-…, built on …", "" when unknown
	Zxid    int64
	// WatchZxid is the zxid this member had applied (srvr) before it was
	// asked for its watches: every change up to it had fired its watches
	// there before the list was made. 0 when unknown (srvr not answered,
	// or the watches not asked).
	WatchZxid int64
	// Srvr is the whole `srvr` reply (latency, node count, connections);
	// zero when srvr was not answered.
	Srvr fourlw.Srvr
	// Conns are the member's client connections (with and without sessions).
	Conns []fourlw.Conn
	// Clients maps each session connected to this member to its client
	// address (from Conns and dump's connection list).
	Clients map[int64]string
	// Watches maps a server path to the sessions with a data watch on it.
	Watches map[string][]int64
	// Ephemerals maps a session to the (server) paths of its ephemeral nodes.
	Ephemerals map[int64][]string
	// Sessions are the live sessions this member listed (the leader and a
	// standalone server list all; a follower's `dump` lists its global
	// sessions); nil when it listed none.
	Sessions []int64

	// What could be learnt: connections, watches, the full session list.
	ConnsKnown, WatchesKnown, SessionsKnown bool
	// Via says where each part came from ("4lw" or "admin"), by word:
	// "srvr", "cons", "wchp", "dump".
	Via map[string]string

	// Detail, asked only with [IntrospectOptions.Detail]: `mntr` (data
	// size, watch count; the AdminServer's monitor when refused), `conf`
	// (myid, timeouts, membership) and `wchs` (data watch totals).
	Mntr                            fourlw.Mntr
	Conf                            fourlw.Conf
	Wchs                            fourlw.Wchs
	MntrKnown, ConfKnown, WchsKnown bool
	// FromConfig is set on a member that is not in the connect string but
	// in the ensemble's configuration (see [Ensemble.Config]).
	FromConfig bool
	// ID is the member's myid when known (conf, or the configuration); 0
	// otherwise and for a standalone server.
	ID int64

	// Err is why the member could not be asked at all (down, unreachable,
	// not serving); nil when it answered.
	Err error
	// Errs are the failures of single parts (a refused word and a failed
	// AdminServer fallback, say), by word.
	Errs map[string]error
}

// IntrospectOptions tune [Client.IntrospectWith].
type IntrospectOptions struct {
	// MemberTimeout bounds each member (default [DefaultMemberTimeout]).
	MemberTimeout time.Duration
	// AdminAddrs maps a member's client address to its AdminServer's
	// host:port, overriding Config.AdminPort for that member (members on
	// one host each have their own admin port).
	AdminAddrs map[string]string
	// Detail also asks mntr, conf and wchs of every member, and asks the
	// members the configuration lists with a client address that the
	// connect string lacks (the ensemble view; lock scans do not need it).
	Detail bool
}

// Introspect asks every configured member concurrently (four-letter words;
// the AdminServer for each word a member refuses, when Config.AdminPort is
// set), each bounded by [DefaultMemberTimeout]. It never returns nil; what
// could not be learnt is marked unknown.
func (c *Client) Introspect(ctx context.Context) *Ensemble {
	return c.IntrospectWith(ctx, IntrospectOptions{})
}

// IntrospectWith is [Client.Introspect] with options.
func (c *Client) IntrospectWith(ctx context.Context, opts IntrospectOptions) *Ensemble {
	e := IntrospectConfig(ctx, c.Config(), opts)
	e.Self = c.SessionID()
	e.Own = c.ownSessions()
	e.dropOwnWatches()
	return e
}

// ownSessions are the client's sessions beside the main one: the
// persistent-watch session and the multi-read one (which sets no watch).
func (c *Client) ownSessions() []int64 {
	var own []int64
	for _, id := range []int64{c.WatchSessionID(), c.bulk.sessionID()} {
		if id != 0 {
			own = append(own, id)
		}
	}
	return own
}

// dropOwnWatches takes e.Own's watches out of every member's list.
func (e *Ensemble) dropOwnWatches() {
	if len(e.Own) == 0 {
		return
	}
	for _, m := range e.Members {
		for p, ids := range m.Watches {
			ids = slices.DeleteFunc(ids, func(id int64) bool { return slices.Contains(e.Own, id) })
			if len(ids) == 0 {
				delete(m.Watches, p)
			} else {
				m.Watches[p] = ids
			}
		}
	}
}

// IntrospectConfig asks the members of cfg (its servers, chroot, admin port
// and TLS) without a session: it works when the ensemble has no quorum.
func IntrospectConfig(ctx context.Context, cfg Config, opts IntrospectOptions) *Ensemble {
	var dial fourlw.WordDialer // plain TCP, or TLS like the session's (not c.dial: it records the session's dial outcomes)
	if cfg.TLS != nil {
		d, err := tlsDialer(cfg.TLS)
		if err != nil {
			now := time.Now()
			e := &Ensemble{Chroot: cfg.Chroot, At: now, End: now}
			for _, s := range cfg.Servers {
				e.Members = append(e.Members, Member{Addr: s, Err: fmt.Errorf("TLS for four-letter words: %w", err)})
			}
			return e
		}
		dial = fourlw.WordDialer(d)
	}
	return introspect(ctx, cfg.Servers, cfg.Chroot, cfg.AdminPort, dial, opts)
}

// IntrospectServers asks the given members (client addresses) without a
// session; chroot is the caller's (see [Ensemble.Chroot]), adminPort as in
// [Config.AdminPort].
func IntrospectServers(ctx context.Context, servers []string, chroot string, adminPort int, opts IntrospectOptions) *Ensemble {
	return introspect(ctx, servers, chroot, adminPort, nil, opts)
}

// introspectHTTP is the AdminServer client: no idle connections kept to
// members that may go away.
var introspectHTTP = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func introspect(ctx context.Context, servers []string, chroot string, adminPort int, dial fourlw.WordDialer, opts IntrospectOptions) *Ensemble {
	timeout := opts.MemberTimeout
	if timeout <= 0 {
		timeout = DefaultMemberTimeout
	}
	e := &Ensemble{Members: make([]Member, len(servers)), Chroot: chroot, At: time.Now()}
	words := coreWords
	if opts.Detail {
		words = append(slices.Clone(coreWords), detailWords...)
	}
	var wg sync.WaitGroup
	for i, addr := range servers {
		var admin *fourlw.AdminServer
		if a := opts.AdminAddrs[addr]; a != "" {
			admin = &fourlw.AdminServer{URL: "http://" + a, HTTP: introspectHTTP}
		} else if adminPort > 0 {
			if host, _, err := net.SplitHostPort(addr); err == nil {
				admin = &fourlw.AdminServer{URL: "http://" + net.JoinHostPort(host, strconv.Itoa(adminPort)), HTTP: introspectHTTP}
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			mctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			e.Members[i] = askMember(mctx, addr, dial, admin, timeout, words)
		}()
	}
	wg.Wait()
	if opts.Detail {
		e.addConfigMembers(ctx, dial, timeout, words)
	}
	e.End = time.Now()
	return e
}

// coreWords are always asked; detailWords only with IntrospectOptions.Detail.
var (
	coreWords   = []string{"srvr", "cons", "wchp", "dump"}
	detailWords = []string{"mntr", "conf", "wchs"}
)

// askMember asks one member its four words at once, falling back to the
// AdminServer for each refused word. The watch list (wchp) is asked once
// srvr has answered, so that [Member.WatchZxid] is known to precede it.
func askMember(ctx context.Context, addr string, dial fourlw.WordDialer, admin *fourlw.AdminServer, timeout time.Duration, words []string) Member {
	m := Member{Addr: addr, Clients: map[int64]string{}, Watches: map[string][]int64{},
		Ephemerals: map[int64][]string{}, Via: map[string]string{}, Errs: map[string]error{}}
	replies := make([]string, len(words))
	errs := make([]error, len(words))
	srvrDone := make(chan struct{})
	if !slices.Contains(words, "srvr") {
		close(srvrDone)
	}
	var wg sync.WaitGroup
	for i, w := range words {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w == "wchp" {
				select {
				case <-srvrDone:
				case <-ctx.Done():
				}
			}
			replies[i], errs[i] = fourlw.FourLetterWord(ctx, dial, addr, w, timeout)
			if w == "srvr" {
				close(srvrDone)
			}
		}()
	}
	wg.Wait()

	// Unreachable: every word failed and none was a refusal.
	unreachable := true
	for _, err := range errs {
		if err == nil || errors.Is(err, fourlw.ErrWordRefused) {
			unreachable = false
		}
	}
	if unreachable {
		m.Err = errs[0]
		return m
	}

	// Each part: the word's reply, else (refused) the AdminServer's.
	var mu sync.Mutex // guards m during the fallbacks
	fail := func(w string, err error) { mu.Lock(); m.Errs[w] = err; mu.Unlock() }
	for i, w := range words {
		if errs[i] == nil {
			if err := m.apply(w, replies[i]); err != nil {
				m.Errs[w] = fmt.Errorf("%s on %s: %w", w, addr, err)
			} else {
				m.Via[w] = "4lw"
			}
		}
	}
	if m.Via["srvr"] != "" && slices.Contains(words, "wchp") {
		m.WatchZxid = m.Zxid // (an AdminServer's watch list, asked later still, comes after it too)
	}
	for i, w := range words {
		if errs[i] == nil {
			continue
		}
		if !errors.Is(errs[i], fourlw.ErrWordRefused) || admin == nil {
			m.Errs[w] = errs[i]
		}
	}
	for i, w := range words {
		if errs[i] == nil || !errors.Is(errs[i], fourlw.ErrWordRefused) || admin == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			refused := errs[i]
			if err := m.applyAdmin(ctx, &mu, w, admin); err != nil {
				fail(w, fmt.Errorf("%w; AdminServer fallback: %w", refused, err))
			}
		}()
	}
	wg.Wait()
	return m
}

// apply stores one word's reply.
func (m *Member) apply(word, reply string) error {
	switch word {
	case "srvr":
		s, err := fourlw.ParseSrvr(reply)
		if err != nil {
			return err
		}
		m.Mode, m.Version, m.Zxid, m.Srvr = s.Mode, s.Version, s.Zxid, s
	case "cons":
		conns, err := fourlw.ParseCons(reply)
		if err != nil {
			return err
		}
		m.setConns(conns)
	case "wchp":
		w, err := fourlw.ParseWchp(reply)
		if err != nil {
			return err
		}
		m.Watches, m.WatchesKnown = w, true
	case "dump":
		d, err := fourlw.ParseDump(reply)
		if err != nil {
			return err
		}
		m.setDump(d, d.Sessions != nil)
	case "mntr":
		mn, err := fourlw.ParseMntr(reply)
		if err != nil {
			return err
		}
		m.Mntr, m.MntrKnown = mn, true
	case "conf":
		c, err := fourlw.ParseConf(reply)
		if err != nil {
			return err
		}
		m.Conf, m.ConfKnown, m.ID = c, true, c.ServerID
	case "wchs":
		w, err := fourlw.ParseWchs(reply)
		if err != nil {
			return err
		}
		m.Wchs, m.WchsKnown = w, true
	}
	return nil
}

// applyAdmin asks the AdminServer for what word would have said.
func (m *Member) applyAdmin(ctx context.Context, mu *sync.Mutex, word string, a *fourlw.AdminServer) error {
	switch word {
	case "srvr":
		mon, err := a.Monitor(ctx)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		m.Mode, m.Version = mon.ServerState, mon.Version
	case "cons":
		conns, err := a.Connections(ctx)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		m.setConns(conns)
	case "wchp":
		w, err := a.WatchesByPath(ctx)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		m.Watches, m.WatchesKnown = w, true
	case "dump":
		d, err := a.Dump(ctx)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		// A follower's AdminServer dump lists no sessions: the list is
		// complete only when it has some (the asking client's own, at least).
		m.setDump(d, len(d.Sessions) > 0)
	case "mntr":
		mon, err := a.Monitor(ctx)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		m.Mntr, m.MntrKnown = mon, true
	default: // conf, wchs: no AdminServer fallback here
		return errors.New("no AdminServer fallback for this word")
	}
	m.Via[word] = "admin" // still under mu: each case unlocks on return
	return nil
}

func (m *Member) setConns(conns []fourlw.Conn) {
	m.Conns, m.ConnsKnown = conns, true
	for _, c := range conns {
		if c.HasSession {
			m.Clients[c.SessionID] = c.Addr
		}
	}
}

func (m *Member) setDump(d fourlw.Dump, complete bool) {
	for id, paths := range d.Ephemerals {
		m.Ephemerals[id] = paths
	}
	for id, addr := range d.Connections {
		if _, ok := m.Clients[id]; !ok {
			m.Clients[id] = addr
		}
	}
	if complete {
		m.Sessions, m.SessionsKnown = d.Sessions, true
	}
}
