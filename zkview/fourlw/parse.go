package fourlw

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Srvr is a member's `srvr` reply.
type Srvr struct {
	Version     string // e.g. "3.8.0-…, built on …"
	Mode        string // "leader", "follower", "standalone", "observer", "read-only"
	Zxid        int64
	LatencyMin  float64 // ms
	LatencyAvg  float64 // ms
	LatencyMax  float64 // ms
	Received    int64
	Sent        int64
	Connections int64
	Outstanding int64
	NodeCount   int64
}

// ParseSrvr parses a `srvr` reply ("Key: value" lines). Unknown lines are
// ignored; a reply without a Mode line is an error.
func ParseSrvr(s string) (Srvr, error) {
	var r Srvr
	var seenMode bool
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Zookeeper version":
			r.Version = v
		case "Mode":
			r.Mode, seenMode = v, true
		case "Zxid":
			r.Zxid, _ = parseHexOrDec(v)
		case "Latency min/avg/max":
			parts := strings.Split(v, "/")
			if len(parts) == 3 {
				r.LatencyMin, _ = strconv.ParseFloat(parts[0], 64)
				r.LatencyAvg, _ = strconv.ParseFloat(parts[1], 64)
				r.LatencyMax, _ = strconv.ParseFloat(parts[2], 64)
			}
		case "Received":
			r.Received, _ = strconv.ParseInt(v, 10, 64)
		case "Sent":
			r.Sent, _ = strconv.ParseInt(v, 10, 64)
		case "Connections":
			r.Connections, _ = strconv.ParseInt(v, 10, 64)
		case "Outstanding":
			r.Outstanding, _ = strconv.ParseInt(v, 10, 64)
		case "Node count":
			r.NodeCount, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if !seenMode {
		return r, fmt.Errorf("srvr reply has no Mode line: %q", abbreviate(s))
	}
	return r, nil
}

// Mntr is a member's `mntr` reply (or the AdminServer's `monitor`): every
// key/value as text, plus the common ones typed. Keys lose their "zk_"
// prefix ("zk_server_state" is Values["server_state"]).
type Mntr struct {
	Values map[string]string

	Version             string
	ServerState         string // "leader", "follower", "standalone", "observer"
	AvgLatency          float64
	MaxLatency          float64
	MinLatency          float64
	PacketsReceived     int64
	PacketsSent         int64
	NumAliveConnections int64
	OutstandingRequests int64
	ZnodeCount          int64
	WatchCount          int64 // data and child watches together
	EphemeralsCount     int64
	ApproximateDataSize int64
	GlobalSessions      int64
	LocalSessions       int64
	Followers           int64 // leader only
	SyncedFollowers     int64 // leader only
	PendingSyncs        int64 // leader only
}

// ParseMntr parses a `mntr` reply (tab-separated "zk_key value" lines).
func ParseMntr(s string) (Mntr, error) {
	vals := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimRight(line, "\r")
		k, v, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		vals[strings.TrimPrefix(strings.TrimSpace(k), "zk_")] = strings.TrimSpace(v)
	}
	if len(vals) == 0 {
		return Mntr{Values: vals}, fmt.Errorf("mntr reply has no key/value lines: %q", abbreviate(s))
	}
	return mntrFromValues(vals), nil
}

// mntrFromValues fills the typed fields of a Mntr from its text values.
func mntrFromValues(vals map[string]string) Mntr {
	m := Mntr{Values: vals, Version: vals["version"], ServerState: vals["server_state"]}
	f := func(k string) float64 { v, _ := strconv.ParseFloat(vals[k], 64); return v }
	i := func(k string) int64 {
		v, err := strconv.ParseInt(vals[k], 10, 64)
		if err != nil {
			v = int64(f(k))
		}
		return v
	}
	m.AvgLatency, m.MaxLatency, m.MinLatency = f("avg_latency"), f("max_latency"), f("min_latency")
	m.PacketsReceived, m.PacketsSent = i("packets_received"), i("packets_sent")
	m.NumAliveConnections, m.OutstandingRequests = i("num_alive_connections"), i("outstanding_requests")
	m.ZnodeCount, m.WatchCount, m.EphemeralsCount = i("znode_count"), i("watch_count"), i("ephemerals_count")
	m.ApproximateDataSize = i("approximate_data_size")
	m.GlobalSessions, m.LocalSessions = i("global_sessions"), i("local_sessions")
	m.Followers, m.SyncedFollowers, m.PendingSyncs = i("followers"), i("synced_followers"), i("pending_syncs")
	return m
}

// Conn is one client connection of a member (`cons`, or the AdminServer's
// `connections`).
type Conn struct {
	Addr        string // client ip:port; IPv6 as "[::1]:port"
	SessionID   int64  // 0 when HasSession is false
	HasSession  bool   // false for a connection without a session (e.g. a four-letter word)
	Queued      int64
	Recved      int64
	Sent        int64
	Established time.Time     // zero when not reported
	Timeout     time.Duration // negotiated session timeout
	LastOp      string        // e.g. "GETD", "PING"
	// LastResponse is when the member last answered the session, in ms of
	// the member's own monotonic clock (not wall time: compare two samples
	// of one member only); 0 when never or not reported.
	LastResponse int64
}

// ParseCons parses a `cons` reply: one connection a line,
//
//	/127.0.0.1:44006[1](queued=0,recved=6,sent=6,sid=0x1000…,lop=GETC,est=1795420601472,to=6000,…)
//
// A line without sid= is a connection without a session. Lines that do not
// look like connections are skipped.
func ParseCons(s string) ([]Conn, error) {
	var out []Conn
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		c, err := parseConsLine(line)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func parseConsLine(line string) (Conn, error) {
	var c Conn
	open := strings.IndexByte(line, '(')
	if open < 0 || !strings.HasSuffix(line, ")") {
		return c, fmt.Errorf("cons line %q: no (…) field list", abbreviate(line))
	}
	head, fields := line[:open], line[open+1:len(line)-1]
	// head is "/ip:port[interest]"; the interest ops are in the last [..].
	if i := strings.LastIndexByte(head, '['); i > 0 && strings.HasSuffix(head, "]") {
		head = head[:i]
	}
	addr, err := clientAddr(head)
	if err != nil {
		return c, fmt.Errorf("cons line %q: %w", abbreviate(line), err)
	}
	c.Addr = addr
	for _, kv := range strings.Split(fields, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch k {
		case "queued":
			c.Queued, _ = strconv.ParseInt(v, 10, 64)
		case "recved":
			c.Recved, _ = strconv.ParseInt(v, 10, 64)
		case "sent":
			c.Sent, _ = strconv.ParseInt(v, 10, 64)
		case "sid":
			id, err := parseSessionID(v)
			if err != nil {
				return c, fmt.Errorf("cons line %q: %w", abbreviate(line), err)
			}
			c.SessionID, c.HasSession = id, true
		case "lop":
			c.LastOp = v
		case "est":
			if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
				c.Established = time.UnixMilli(ms)
			}
		case "lresp":
			c.LastResponse, _ = strconv.ParseInt(v, 10, 64)
		case "to":
			if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
				c.Timeout = time.Duration(ms) * time.Millisecond
			}
		}
	}
	return c, nil
}

// clientAddr turns the server's "/ip:port" (Java's InetSocketAddress, maybe
// "host/ip:port"; IPv6 with or without brackets, in full form) into
// "ip:port" / "[::1]:port" with the IP in its canonical form.
func clientAddr(s string) (string, error) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	var host, port string
	if strings.HasPrefix(s, "[") {
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return "", fmt.Errorf("client address %q: %w", abbreviate(s), err)
		}
		host, port = h, p
	} else {
		i := strings.LastIndexByte(s, ':')
		if i <= 0 {
			return "", fmt.Errorf("client address %q: no port", abbreviate(s))
		}
		host, port = s[:i], s[i+1:]
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("client address %q: bad port", abbreviate(s))
	}
	ip, zone, _ := strings.Cut(host, "%")
	if parsed := net.ParseIP(ip); parsed != nil {
		host = parsed.String()
		if zone != "" {
			host += "%" + zone
		}
	}
	return net.JoinHostPort(host, port), nil
}

// ParseWchp parses a `wchp` reply: a path line, then its watching session
// ids each on a tab-indented line. Only data and exists watches are listed
// by the server; getChildren watches never appear.
func ParseWchp(s string) (map[string][]int64, error) {
	out := map[string][]int64{}
	err := parseGroups(s, func(head string, items []string) error {
		ids := out[head]
		for _, it := range items {
			id, err := parseSessionID(it)
			if err != nil {
				return fmt.Errorf("wchp: path %s: %w", head, err)
			}
			ids = append(ids, id)
		}
		out[head] = ids
		return nil
	})
	return out, err
}

// ParseWchc parses a `wchc` reply: a session id line, then the paths it
// watches (data and exists watches only) on tab-indented lines.
func ParseWchc(s string) (map[int64][]string, error) {
	out := map[int64][]string{}
	err := parseGroups(s, func(head string, items []string) error {
		id, err := parseSessionID(head)
		if err != nil {
			return fmt.Errorf("wchc: %w", err)
		}
		out[id] = append(out[id], items...)
		return nil
	})
	return out, err
}

// parseGroups walks "head\n\titem\n\titem\n…" blocks.
func parseGroups(s string, fn func(head string, items []string) error) error {
	var head string
	var items []string
	have := false
	flush := func() error {
		if !have {
			return nil
		}
		return fn(head, items)
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if line[0] == '\t' || line[0] == ' ' {
			if !have {
				return fmt.Errorf("indented line %q before any heading", abbreviate(line))
			}
			items = append(items, strings.TrimSpace(line))
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		head, items, have = strings.TrimSpace(line), nil, true
	}
	return flush()
}

// parseSessionID reads "0x1000…" (hex, as the words print it) or a decimal
// id (as the AdminServer prints it). Ids above 2^63 wrap to negative, like
// Java's long.
func parseSessionID(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		u, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			return 0, fmt.Errorf("session id %q: %w", abbreviate(s), err)
		}
		return int64(u), nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("session id %q: %w", abbreviate(s), err)
	}
	return v, nil
}

// parseHexOrDec reads a zxid printed as 0x… or as a decimal.
func parseHexOrDec(s string) (int64, error) { return parseSessionID(s) }

// abbreviate shortens text for an error message.
func abbreviate(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
