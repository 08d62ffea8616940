package zkview

import (
	"context"
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/zkview/fourlw"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// ErrNoClientAddr is a configured member that the connect string lacks and
// whose client address the configuration does not give (a static
// configuration): it cannot be asked.
var ErrNoClientAddr = errors.New("in the ensemble's configuration but not in the connect string, and the configuration gives no client address")

// Member roles beyond the servers' own modes.
const (
	RoleDown    = "down"    // could not be asked (unreachable, stopped, not serving)
	RoleUnknown = "unknown" // answered, but would not say its mode
)

// Role is the member's mode ("leader", "follower", "observer",
// "standalone", "read-only"), [RoleDown] when it could not be asked, or
// [RoleUnknown].
func (m *Member) Role() string {
	switch {
	case m.Err != nil:
		return RoleDown
	case m.Mode == "":
		return RoleUnknown
	}
	return m.Mode
}

// Epoch is the leader epoch of the member's last zxid (its high 32 bits).
func (m *Member) Epoch() int64 { return m.Zxid >> 32 }

// Counter is the zxid's transaction counter (its low 32 bits).
func (m *Member) Counter() int64 { return m.Zxid & 0xffffffff }

// Refused lists the words the member refused (not whitelisted) that the
// AdminServer did not answer instead, in the order asked.
func (m *Member) Refused() []string {
	var out []string
	for _, w := range append(slices.Clone(coreWords), detailWords...) {
		if err := m.Errs[w]; err != nil && errors.Is(err, fourlw.ErrWordRefused) {
			out = append(out, w)
		}
	}
	return out
}

// addConfigMembers fills e.Config from the members' `conf` and asks the
// configured members the connect string lacks: those with a client address
// are asked like the others; the rest are listed with [ErrNoClientAddr].
func (e *Ensemble) addConfigMembers(ctx context.Context, dial fourlw.WordDialer, timeout time.Duration, words []string) {
	for _, m := range e.Members {
		if m.ConfKnown && len(m.Conf.Servers) > 0 {
			e.Config = slices.Clone(m.Conf.Servers)
			break
		}
	}
	var extra []Member
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, cs := range e.Config {
		if e.memberByID(cs.ID) != nil || (cs.Client != "" && e.memberByAddr(cs.Client) != nil) {
			continue
		}
		if cs.Client == "" {
			if e.unknownIDs() > 0 {
				continue // a connect-string member that did not answer may be this one
			}
			extra = append(extra, Member{ID: cs.ID, FromConfig: true, Err: ErrNoClientAddr,
				Addr: fmt.Sprintf("server.%d (%s)", cs.ID, cs.Host)})
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			mctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			m := askMember(mctx, cs.Client, dial, nil, timeout, words)
			m.FromConfig, m.ID = true, cs.ID
			mu.Lock()
			extra = append(extra, m)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.SortFunc(extra, func(a, b Member) int { return int(a.ID - b.ID) })
	e.Members = append(e.Members, extra...)
}

// memberByID is the member whose myid is id, or nil.
func (e *Ensemble) memberByID(id int64) *Member {
	for i := range e.Members {
		if e.Members[i].ID == id && id != 0 {
			return &e.Members[i]
		}
	}
	return nil
}

// memberByAddr is the member asked at addr, or nil.
func (e *Ensemble) memberByAddr(addr string) *Member {
	for i := range e.Members {
		if e.Members[i].Addr == addr {
			return &e.Members[i]
		}
	}
	return nil
}

// unknownIDs counts the connect-string members whose myid is unknown.
func (e *Ensemble) unknownIDs() int {
	n := 0
	for _, m := range e.Members {
		if m.ID == 0 && !m.FromConfig && m.Mode != "standalone" {
			n++
		}
	}
	return n
}

// DynamicConfig reads the ensemble's configuration from the /zookeeper/config
// node (outside any chroot). A server without one (standalone) gives no
// servers and no error.
func (c *Client) DynamicConfig() (servers []fourlw.ConfServer, version string, err error) {
	data, _, err := c.Conn().Get("/zookeeper/config")
	if errors.Is(err, zk.ErrNoNode) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read /zookeeper/config: %w", err)
	}
	return fourlw.ParseDynamicConfig(string(data))
}

// Changes compares two snapshots of the same ensemble: members that went
// down or came back, and a change of leader. prev may be nil (no changes).
func (e *Ensemble) Changes(prev *Ensemble) []string {
	if e == nil || prev == nil {
		return nil
	}
	var out []string
	for i := range e.Members {
		m := &e.Members[i]
		p := prev.memberByAddr(m.Addr)
		if p == nil {
			continue
		}
		switch was, is := p.Role(), m.Role(); {
		case was != RoleDown && is == RoleDown:
			out = append(out, m.Addr+" went down")
		case was == RoleDown && is != RoleDown:
			out = append(out, m.Addr+" is back ("+is+")")
		}
	}
	before, after := prev.Leader(), e.Leader()
	switch {
	case after != nil && (before == nil || before.Addr != after.Addr):
		out = append(out, "new leader: "+after.Addr)
	case after == nil && before != nil:
		out = append(out, "no leader (was "+before.Addr+")")
	}
	return out
}

// WhitelistLine is the zoo.cfg line that lets zkscope ask everything it asks.
func WhitelistLine() string { return "4lw.commands.whitelist=" + fourlw.IntrospectionWords }
