package exporter

import (
	"regexp"

	"github.com/prometheus/client_golang/prometheus"
)

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// MetricNames are the names of every metric the exporter serves.
func MetricNames() []string {
	ch := make(chan *prometheus.Desc, 64)
	describeAll(ch)
	close(ch)
	var out []string
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}
