package report

import (
	"github.com/zkscope/zkscope/zkview/fourlw"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview"
)

// TestFormatLatency: the servers' average (four decimals from srvr, every
// digit of a double from mntr) is shown rounded: a tenth under 10 ms,
// whole milliseconds above; the JSON keeps four decimals.
func TestFormatLatency(t *testing.T) {
	for _, c := range []struct {
		ms   float64
		want string
	}{{0, "0"}, {0.4286, "0.4"}, {0.04, "0"}, {0.96, "1"}, {3, "3"}, {9.94, "9.9"}, {9.96, "10"}, {12.3456, "12"}, {1234.5, "1235"}} {
		if got := FormatLatency(c.ms); got != c.want {
			t.Errorf("FormatLatency(%v) = %q, want %q", c.ms, got, c.want)
		}
	}
	e := &zkview.Ensemble{At: time.Unix(0, 0), Members: []zkview.Member{{Addr: "zk1:2181",
		Via:  map[string]string{"srvr": "4lw"},
		Srvr: fourlw.Srvr{Mode: "standalone", LatencyMin: 0, LatencyAvg: 0.42857142857142855, LatencyMax: 9}}}}
	r := NewEnsembleReport(e, nil)
	if l := r.Members[0].LatencyMs; l == nil || l.Avg != 0.4286 {
		t.Fatalf("latency in the report: %+v, want avg 0.4286", l)
	}
	if got := EnsembleRow(r.Members[0])[6]; got != "0/0.4/9" {
		t.Errorf("table's latency cell %q, want 0/0.4/9", got)
	}
}
