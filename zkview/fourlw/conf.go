package fourlw

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Conf is a member's `conf` reply: its configuration as it runs.
type Conf struct {
	// Values holds every "key=value" line as text.
	Values map[string]string
	// ServerID is the member's myid (0 for a standalone server).
	ServerID          int64
	ClientPort        int
	TickTime          time.Duration
	MinSessionTimeout time.Duration
	MaxSessionTimeout time.Duration
	// Servers is the ensemble's membership as this member knows it (empty
	// for a standalone server).
	Servers []ConfServer
	// Version is the configuration's version (hex, as printed), "" when
	// the reply has none.
	Version string
}

// ConfServer is one "server.N=…" line of a configuration (`conf`'s
// membership, or the /zookeeper/config node).
type ConfServer struct {
	ID           int64
	Host         string // the quorum host
	QuorumPort   int
	ElectionPort int
	Role         string // "participant" or "observer"
	// Client is the member's client address when the configuration gives
	// one (dynamic configuration: ";[clientAddr:]clientPort"), else "".
	Client string
}

// ParseConf parses a `conf` reply ("key=value" lines, then "membership:"
// and the "server.N=" lines on an ensemble member).
func ParseConf(s string) (Conf, error) {
	c := Conf{Values: map[string]string{}}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if strings.HasPrefix(k, "server.") {
			cs, err := ParseConfServer(line)
			if err != nil {
				return c, fmt.Errorf("conf: %w", err)
			}
			c.Servers = append(c.Servers, cs)
			continue
		}
		c.Values[k] = v
	}
	if _, ok := c.Values["clientPort"]; !ok {
		return c, fmt.Errorf("conf reply has no clientPort line: %q", abbreviate(s))
	}
	ms := func(k string) time.Duration {
		v, _ := strconv.ParseInt(c.Values[k], 10, 64)
		return time.Duration(v) * time.Millisecond
	}
	c.ServerID, _ = strconv.ParseInt(c.Values["serverId"], 10, 64)
	c.ClientPort, _ = strconv.Atoi(c.Values["clientPort"])
	c.TickTime, c.MinSessionTimeout, c.MaxSessionTimeout = ms("tickTime"), ms("minSessionTimeout"), ms("maxSessionTimeout")
	c.Version = c.Values["version"]
	return c, nil
}

// ParseConfServer parses one "server.N=host:quorum:election[:role][;[client:]port]" line.
func ParseConfServer(line string) (ConfServer, error) {
	var cs ConfServer
	k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
	if !ok || !strings.HasPrefix(k, "server.") {
		return cs, fmt.Errorf("configuration line %q: not server.N=…", abbreviate(line))
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(k, "server."), 10, 64)
	if err != nil {
		return cs, fmt.Errorf("configuration line %q: bad id", abbreviate(line))
	}
	cs.ID = id
	quorum, client, hasClient := strings.Cut(v, ";")
	// host:quorum:election[:role]; the host may be a bracketed IPv6 address.
	host, rest := quorum, ""
	if strings.HasPrefix(quorum, "[") {
		if i := strings.Index(quorum, "]"); i > 0 {
			host, rest = quorum[1:i], strings.TrimPrefix(quorum[i+1:], ":")
		}
	} else if h, r, ok := strings.Cut(quorum, ":"); ok {
		host, rest = h, r
	}
	parts := strings.Split(rest, ":")
	if len(parts) < 2 {
		return cs, fmt.Errorf("configuration line %q: want host:quorumPort:electionPort", abbreviate(line))
	}
	cs.Host = host
	cs.QuorumPort, _ = strconv.Atoi(parts[0])
	cs.ElectionPort, _ = strconv.Atoi(parts[1])
	cs.Role = "participant"
	if len(parts) > 2 && parts[2] != "" {
		cs.Role = parts[2]
	}
	if hasClient {
		client = strings.TrimSpace(client)
		if port, err := strconv.Atoi(client); err == nil {
			cs.Client = net.JoinHostPort(host, strconv.Itoa(port))
		} else if h, p, err := net.SplitHostPort(client); err == nil {
			if h == "" || h == "0.0.0.0" || h == "::" {
				h = host
			}
			cs.Client = net.JoinHostPort(h, p)
		}
	}
	return cs, nil
}

// ParseDynamicConfig parses the /zookeeper/config node: "server.N=" lines
// and "version=…".
func ParseDynamicConfig(s string) (servers []ConfServer, version string, err error) {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "server."):
			cs, err := ParseConfServer(line)
			if err != nil {
				return servers, version, err
			}
			servers = append(servers, cs)
		case strings.HasPrefix(line, "version="):
			version = strings.TrimPrefix(line, "version=")
		}
	}
	return servers, version, nil
}

// Wchs is a member's `wchs` reply: a summary of its data watches.
type Wchs struct {
	Connections int64 // connections with at least one watch
	Paths       int64 // watched paths
	Watches     int64 // data and exists watches (getChildren watches are not counted)
}

// ParseWchs parses a `wchs` reply:
//
//	1 connections watching 2 paths
//	Total watches:2
func ParseWchs(s string) (Wchs, error) {
	var w Wchs
	var seen bool
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "Total watches:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return w, fmt.Errorf("wchs: %q: %w", abbreviate(line), err)
			}
			w.Watches, seen = n, true
			continue
		}
		var conns, paths int64
		if _, err := fmt.Sscanf(line, "%d connections watching %d paths", &conns, &paths); err == nil {
			w.Connections, w.Paths = conns, paths
		}
	}
	if !seen {
		return w, fmt.Errorf("wchs reply has no Total watches line: %q", abbreviate(s))
	}
	return w, nil
}
