package report

import (
	"strconv"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
)

// appendDBJSON appends a database participant's fields: level (null when
// the server does not say), blocked_by, and its backend as the server
// describes it (times in RFC 3339 with milliseconds, null when unknown).
func appendDBJSON(b []byte, d *lockops.DBSession) []byte {
	b = append(b, `,"level":`...)
	b = appendJSONStringOrNull(b, d.Level)
	b = append(b, `,"blocked_by":[`...)
	for i, id := range d.BlockedBy {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, `],"backend":`...)
	if d.NoBackend {
		return append(b, "null"...)
	}
	b = append(b, `{"database":`...)
	b = appendJSONStringOrNull(b, d.Database)
	for _, f := range []struct{ k, v string }{{"user", d.User}, {"application", d.Application}, {"state", d.State}, {"query", d.Query}} {
		b = append(b, `,"`+f.k+`":`...)
		b = appendJSONStringOrNull(b, f.v)
	}
	for _, f := range []struct {
		k string
		t time.Time
	}{{"backend_start", d.BackendStart}, {"xact_start", d.XactStart}, {"state_change", d.StateChange}, {"wait_start", d.WaitStart}} {
		b = append(b, `,"`+f.k+`":`...)
		if f.t.IsZero() {
			b = append(b, "null"...)
		} else {
			b = append(b, '"')
			b = f.t.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
			b = append(b, '"')
		}
	}
	return append(b, '}')
}

// dbCell is a database participant's last table column: its level when
// known, then who its backend is and what it is doing.
func dbCell(p lockops.Participant) string {
	d := p.DB
	if d.NoBackend {
		if p.Session == 0 {
			return "prepared transaction"
		}
		return "backend gone"
	}
	var parts []string
	if d.Level != "" {
		parts = append(parts, d.Level)
	}
	who := d.User
	if d.Application != "" {
		who += "/" + d.Application
	}
	parts = append(parts, who, d.State)
	if q := strings.Join(strings.Fields(d.Query), " "); q != "" {
		if len([]rune(q)) > 60 {
			q = string([]rune(q)[:59]) + "…"
		}
		parts = append(parts, q)
	}
	return strings.Join(parts, " ")
}
