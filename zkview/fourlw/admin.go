package fourlw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// maxAdminReply caps an AdminServer reply.
const maxAdminReply = 64 << 20

// AdminServer asks one member's AdminServer (JSON over HTTP, ZooKeeper 3.5+):
// the fallback when four-letter words are refused. Session ids are JSON
// numbers above 2^53, so they are decoded as int64, never through float64.
type AdminServer struct {
	// URL is the AdminServer's base, e.g. "http://10.0.0.1:8080".
	URL string
	// HTTP is the client to use (http.DefaultClient when nil). Calls are
	// bounded by their ctx.
	HTTP *http.Client
}

// AdminError is an error the AdminServer reported in its JSON "error" field
// (or an HTTP error status).
type AdminError struct {
	URL, Command, Message string
}

// Error implements error.
func (e *AdminError) Error() string {
	return fmt.Sprintf("AdminServer %s: %s: %s", e.URL, e.Command, e.Message)
}

// get runs one command, checks its "error" and decodes the body into v.
func (a AdminServer) get(ctx context.Context, cmd string, v any) error {
	u := strings.TrimRight(a.URL, "/") + "/commands/" + cmd
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("AdminServer %s: %w", cmd, err)
	}
	hc := a.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("AdminServer %s: %w", cmd, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAdminReply+1))
	if err != nil {
		return fmt.Errorf("AdminServer %s: read reply: %w", u, err)
	}
	if len(body) > maxAdminReply {
		return fmt.Errorf("AdminServer %s: reply longer than %d bytes", u, maxAdminReply)
	}
	var head struct {
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		if resp.StatusCode != http.StatusOK {
			return &AdminError{URL: a.URL, Command: cmd, Message: resp.Status}
		}
		return fmt.Errorf("AdminServer %s: not JSON: %w", u, err)
	}
	if head.Error != nil {
		return &AdminError{URL: a.URL, Command: cmd, Message: *head.Error}
	}
	if resp.StatusCode != http.StatusOK {
		return &AdminError{URL: a.URL, Command: cmd, Message: resp.Status}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("AdminServer %s: decode: %w", u, err)
	}
	return nil
}

// adminConn is one entry of the `connections` command.
type adminConn struct {
	Remote      string `json:"remote_socket_address"`
	Outstanding int64  `json:"outstanding_requests"`
	Received    int64  `json:"packets_received"`
	Sent        int64  `json:"packets_sent"`
	SessionID   *int64 `json:"session_id"`
	LastOp      string `json:"last_operation"`
	Established int64  `json:"established"`
	Timeout     int64  `json:"session_timeout"`
}

// ParseAdminConnections decodes the `connections` command's JSON.
func ParseAdminConnections(body []byte) ([]Conn, error) {
	var r struct {
		Plain  []adminConn `json:"connections"`
		Secure []adminConn `json:"secure_connections"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("AdminServer connections: %w", err)
	}
	var out []Conn
	for _, ac := range append(r.Plain, r.Secure...) {
		addr, err := clientAddr(ac.Remote)
		if err != nil {
			return out, fmt.Errorf("AdminServer connections: %w", err)
		}
		c := Conn{Addr: addr, Queued: ac.Outstanding, Recved: ac.Received, Sent: ac.Sent,
			LastOp: ac.LastOp, Timeout: time.Duration(ac.Timeout) * time.Millisecond}
		if ac.SessionID != nil && *ac.SessionID != 0 {
			c.SessionID, c.HasSession = *ac.SessionID, true
		}
		if ac.Established > 0 {
			c.Established = time.UnixMilli(ac.Established)
		}
		out = append(out, c)
	}
	return out, nil
}

// ParseAdminWatchesByPath decodes the `watches_by_path` command's JSON:
// server path -> sessions with a data (or exists) watch on it.
func ParseAdminWatchesByPath(body []byte) (map[string][]int64, error) {
	var r struct {
		Paths map[string][]int64 `json:"path_to_session_ids"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("AdminServer watches_by_path: %w", err)
	}
	if r.Paths == nil {
		r.Paths = map[string][]int64{}
	}
	return r.Paths, nil
}

// ParseAdminDump decodes the `dump` command's JSON. Its expiry times are the
// server's internal ticks, not wall-clock times, so [Dump.Expiry] stays
// empty; a follower lists no sessions (Sessions is nil then).
func ParseAdminDump(body []byte) (Dump, error) {
	var r struct {
		Expiry     map[string][]int64 `json:"expiry_time_to_session_ids"`
		Ephemerals map[int64][]string `json:"session_id_to_ephemeral_paths"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return Dump{}, fmt.Errorf("AdminServer dump: %w", err)
	}
	d := Dump{Ephemerals: r.Ephemerals, Connections: map[int64]string{}}
	if d.Ephemerals == nil {
		d.Ephemerals = map[int64][]string{}
	}
	for _, ids := range r.Expiry {
		d.Sessions = append(d.Sessions, ids...)
	}
	return d, nil
}

// ParseAdminMonitor decodes the `monitor` command's JSON into a [Mntr]
// (values as text; numbers exactly as sent).
func ParseAdminMonitor(body []byte) (Mntr, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return Mntr{}, fmt.Errorf("AdminServer monitor: %w", err)
	}
	vals := make(map[string]string, len(raw))
	for k, v := range raw {
		switch v := v.(type) {
		case string:
			vals[k] = v
		case json.Number:
			vals[k] = v.String()
		case bool:
			vals[k] = fmt.Sprint(v)
		case nil:
		default:
			b, _ := json.Marshal(v)
			vals[k] = string(b)
		}
	}
	return mntrFromValues(vals), nil
}

// AdminLeader is the `leader` command's answer.
type AdminLeader struct {
	IsLeader bool   `json:"is_leader"`
	LeaderID int64  `json:"leader_id"`
	LeaderIP string `json:"leader_ip"`
}

// raw fetches one command's body (checked for "error").
func (a AdminServer) raw(ctx context.Context, cmd string) ([]byte, error) {
	var m json.RawMessage
	if err := a.get(ctx, cmd, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Connections lists the member's client connections.
func (a AdminServer) Connections(ctx context.Context) ([]Conn, error) {
	b, err := a.raw(ctx, "connections")
	if err != nil {
		return nil, err
	}
	return ParseAdminConnections(b)
}

// WatchesByPath maps each watched server path to the sessions watching its
// data (getChildren watches are not listed by the server).
func (a AdminServer) WatchesByPath(ctx context.Context) (map[string][]int64, error) {
	b, err := a.raw(ctx, "watches_by_path")
	if err != nil {
		return nil, err
	}
	return ParseAdminWatchesByPath(b)
}

// Dump returns the sessions and their ephemeral nodes.
func (a AdminServer) Dump(ctx context.Context) (Dump, error) {
	b, err := a.raw(ctx, "dump")
	if err != nil {
		return Dump{}, err
	}
	return ParseAdminDump(b)
}

// Monitor returns the member's metrics (the `mntr` equivalent).
func (a AdminServer) Monitor(ctx context.Context) (Mntr, error) {
	b, err := a.raw(ctx, "monitor")
	if err != nil {
		return Mntr{}, err
	}
	return ParseAdminMonitor(b)
}

// Leader says whether the member leads and who does. A standalone server
// answers an [*AdminError] ("server is not initialized").
func (a AdminServer) Leader(ctx context.Context) (AdminLeader, error) {
	var l AdminLeader
	err := a.get(ctx, "leader", &l)
	return l, err
}

// IsAdminError reports whether err is an error the AdminServer itself sent.
func IsAdminError(err error) bool {
	var ae *AdminError
	return errors.As(err, &ae)
}
