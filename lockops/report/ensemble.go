package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// The `zkscope ensemble --json` document (README "Ensemble view"). Like
// `locks --json` it is versioned: fields may be added, never renamed or
// dropped. Unknown values are null, never 0.

// EnsembleSchema is the version of the `zkscope ensemble --json` document.
const EnsembleSchema = 1

// EnsembleReport is the `zkscope ensemble --json` document.
type EnsembleReport struct {
	Schema  int       `json:"schema"`
	Servers []string  `json:"servers"`
	At      time.Time `json:"at"`
	// Leader is the leader's (or standalone server's) address, null when
	// no member says it leads.
	Leader  *string        `json:"leader"`
	Members []MemberReport `json:"members"`
	// Configuration is the membership the members report (server.N lines),
	// empty for a standalone server or when conf is refused.
	Configuration []ConfigServerReport `json:"configuration"`
	// Changes are what changed since the previous snapshot (taken at
	// Since: `ensemble --interval`, the TUI's refreshes): members going
	// down or coming back, a new leader. Empty for one snapshot, when
	// Since is null.
	Changes []string   `json:"changes"`
	Since   *time.Time `json:"since"`
}

// MemberReport is one member in [EnsembleReport].
type MemberReport struct {
	Addr string `json:"addr"`
	// ID is the member's myid, null when unknown (0 for standalone).
	ID *int64 `json:"id"`
	// Role: "leader", "follower", "observer", "standalone", "read-only",
	// "down" (could not be asked) or "unknown".
	Role            string  `json:"role"`
	InConnectString bool    `json:"in_connect_string"`
	Version         *string `json:"version"`
	Zxid            *string `json:"zxid"` // 0x… hex
	Epoch           *int64  `json:"epoch"`
	// LatencyMs is min/avg/max request latency in milliseconds.
	LatencyMs   *LatencyReport `json:"latency_ms"`
	Outstanding *int64         `json:"outstanding"`
	Connections *int64         `json:"connections"`
	// Watches counts data and exists watches (wchs); WatchesAll counts
	// children watches too (mntr's watch_count).
	Watches    *int64 `json:"watches"`
	WatchesAll *int64 `json:"watches_all"`
	Znodes     *int64 `json:"znodes"`
	DataSize   *int64 `json:"data_size"`
	Sessions   *int   `json:"sessions"`
	// Answered maps each word asked to who answered it: "4lw" or "admin".
	Answered map[string]string `json:"answered"`
	// Refused lists the words the member refused that no AdminServer
	// answered; Fix is then the zoo.cfg line to add.
	Refused []string `json:"refused"`
	Fix     *string  `json:"fix"`
	Error   *string  `json:"error"`
}

// LatencyReport is min/avg/max latency in milliseconds.
type LatencyReport struct {
	Min float64 `json:"min"`
	Avg float64 `json:"avg"`
	Max float64 `json:"max"`
}

// ConfigServerReport is one server.N line of the ensemble's configuration.
type ConfigServerReport struct {
	ID           int64   `json:"id"`
	Host         string  `json:"host"`
	QuorumPort   int     `json:"quorum_port"`
	ElectionPort int     `json:"election_port"`
	Role         string  `json:"role"`
	Client       *string `json:"client"`
}

// NewEnsembleReport builds the report of e; prev (may be nil) is the
// previous snapshot, for Changes.
func NewEnsembleReport(e, prev *zkview.Ensemble) EnsembleReport {
	r := EnsembleReport{Schema: EnsembleSchema, Servers: []string{}, At: e.At.UTC(),
		Members: []MemberReport{}, Configuration: []ConfigServerReport{}, Changes: e.Changes(prev)}
	if r.Changes == nil {
		r.Changes = []string{}
	}
	if prev != nil {
		r.Since = ptr(prev.At.UTC())
	}
	if l := e.Leader(); l != nil {
		r.Leader = ptr(l.Addr)
	}
	for i := range e.Members {
		m := &e.Members[i]
		if !m.FromConfig {
			r.Servers = append(r.Servers, m.Addr)
		}
		r.Members = append(r.Members, memberReport(m))
	}
	for _, cs := range e.Config {
		c := ConfigServerReport{ID: cs.ID, Host: cs.Host, QuorumPort: cs.QuorumPort, ElectionPort: cs.ElectionPort, Role: cs.Role}
		if cs.Client != "" {
			c.Client = ptr(cs.Client)
		}
		r.Configuration = append(r.Configuration, c)
	}
	return r
}

func memberReport(m *zkview.Member) MemberReport {
	r := MemberReport{Addr: m.Addr, Role: m.Role(), InConnectString: !m.FromConfig,
		Answered: map[string]string{}, Refused: []string{}}
	for w, via := range m.Via {
		r.Answered[w] = via
	}
	if m.Err != nil {
		r.Error = ptr(m.Err.Error())
		if m.ID != 0 {
			r.ID = ptr(m.ID)
		}
		return r
	}
	if m.ConfKnown || m.ID != 0 || m.Mode == "standalone" {
		r.ID = ptr(m.ID)
	}
	if m.Version != "" {
		r.Version = ptr(m.Version)
	}
	if m.Via["srvr"] == "4lw" {
		r.Zxid, r.Epoch = ptr(fmt.Sprintf("%#x", m.Zxid)), ptr(m.Epoch())
		s := m.Srvr
		r.LatencyMs = &LatencyReport{Min: s.LatencyMin, Avg: roundLatency(s.LatencyAvg), Max: s.LatencyMax}
		r.Outstanding, r.Connections, r.Znodes = ptr(s.Outstanding), ptr(s.Connections), ptr(s.NodeCount)
	}
	if m.MntrKnown {
		mn := m.Mntr
		if r.LatencyMs == nil {
			r.LatencyMs = &LatencyReport{Min: mn.MinLatency, Avg: roundLatency(mn.AvgLatency), Max: mn.MaxLatency}
			r.Outstanding, r.Connections, r.Znodes = ptr(mn.OutstandingRequests), ptr(mn.NumAliveConnections), ptr(mn.ZnodeCount)
		}
		r.WatchesAll, r.DataSize = ptr(mn.WatchCount), ptr(mn.ApproximateDataSize)
	}
	if m.WchsKnown {
		r.Watches = ptr(m.Wchs.Watches)
	}
	if m.SessionsKnown {
		r.Sessions = ptr(len(m.Sessions))
	}
	r.Refused = append(r.Refused, m.Refused()...)
	if len(r.Refused) > 0 {
		r.Fix = ptr(zkview.WhitelistLine())
	}
	return r
}

func ptr[T any](v T) *T { return &v }

// WriteEnsembleJSON writes the `zkscope ensemble --json` document.
func WriteEnsembleJSON(w io.Writer, r EnsembleReport) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteEnsembleTable writes the members for people: one row each, then the
// configured members the connect string lacks and the zoo.cfg line for
// refused words.
func WriteEnsembleTable(w io.Writer, r EnsembleReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MEMBER\tID\tROLE\tVERSION\tZXID\tEPOCH\tLATENCY min/avg/max\tOUT\tCONNS\tWATCHES\tZNODES\tDATA\tASKED")
	var fix string
	for _, m := range r.Members {
		fmt.Fprintln(tw, strings.Join(EnsembleRow(m), "\t"))
		if m.Fix != nil {
			fix = *m.Fix
		}
	}
	for _, m := range r.Members {
		if m.Error != nil {
			fmt.Fprintf(tw, "! %s: %s\n", printable.String(m.Addr), printable.String(*m.Error))
		}
	}
	for _, c := range r.Changes {
		fmt.Fprintf(tw, "* %s\n", printable.String(c))
	}
	if r.Since != nil && len(r.Changes) == 0 {
		fmt.Fprintf(tw, "* no change since %s (no member went down or came back, same leader)\n", r.Since.Local().Format("15:04:05"))
	}
	if fix != "" {
		fmt.Fprintf(tw, "note: some members refused four-letter words; add %s to zoo.cfg on every member and restart them\n", printable.String(fix))
	}
	return tw.Flush()
}

// EnsembleRow is a member's cells, in the order of the table's header
// (shared with the TUI's ensemble view), escaped ([printable.String]).
func EnsembleRow(m MemberReport) []string {
	dash := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatInt(*p, 10)
	}
	id := "-"
	if m.ID != nil {
		id = strconv.FormatInt(*m.ID, 10)
	}
	ver, zxid := "-", "-"
	if m.Version != nil {
		ver = ShortVersion(*m.Version)
	}
	if m.Zxid != nil {
		zxid = *m.Zxid
	}
	lat := "-"
	if l := m.LatencyMs; l != nil {
		lat = FormatLatency(l.Min) + "/" + FormatLatency(l.Avg) + "/" + FormatLatency(l.Max)
	}
	data := "-"
	if m.DataSize != nil {
		data = FormatBytes(*m.DataSize)
	}
	return printableCells([]string{m.Addr, id, m.Role, ver, zxid, dash(m.Epoch), lat, dash(m.Outstanding),
		dash(m.Connections), dash(m.Watches), dash(m.Znodes), data, askedCell(m)})
}

// askedCell says how the member answered: "4lw", "admin", "4lw+admin",
// "refused: cons,wchp" or "-" (down).
func askedCell(m MemberReport) string {
	if len(m.Refused) > 0 {
		return "refused: " + strings.Join(m.Refused, ",")
	}
	has := map[string]bool{}
	for _, via := range m.Answered {
		has[via] = true
	}
	switch {
	case has["4lw"] && has["admin"]:
		return "4lw+admin"
	case has["admin"]:
		return "admin"
	case has["4lw"]:
		return "4lw"
	}
	return "-"
}

// ShortVersion is a server version without its build suffix
// ("3.8.0-…, built on …" is "3.8.0").
func ShortVersion(v string) string {
	v, _, _ = strings.Cut(v, ",")
	v, _, _ = strings.Cut(v, "-")
	return strings.TrimSpace(v)
}

// roundLatency keeps four decimals of a latency in milliseconds (0.1 µs;
// `mntr` prints a double's every digit: 0.42857142857142855).
func roundLatency(ms float64) float64 { return math.Round(ms*1e4) / 1e4 }

// FormatLatency is a latency in milliseconds for people: one decimal under
// 10 ms ("0.4", "3"), whole milliseconds above ("12"); the servers' average
// comes with four decimals or more (0.4286).
func FormatLatency(ms float64) string {
	if ms < 10 {
		return strconv.FormatFloat(math.Round(ms*10)/10, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(ms), 'f', 0, 64)
}

// FormatBytes is a size in B, KiB, MiB or GiB with one decimal.
func FormatBytes(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
}
