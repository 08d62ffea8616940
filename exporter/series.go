package exporter

import (
	dto "github.com/prometheus/client_model/go"
)

// lockEntry is one lock as scrapes serve it, kept while its queue is the
// same: its figures, and once it is served on its own (not summed), its
// label pairs and the series the clock does not change (shared by every
// scrape, never changed once made).
type lockEntry struct {
	figures
	served bool             // kept by the filter (nothing else is made when not)
	gen    uint64           // the last refresh that found it
	labels []*dto.LabelPair // nil until its series are made
	// holdersSeries and waitersSeries are always served; ttlSeries and
	// mastersSeries are nil when absent.
	holdersSeries, waitersSeries, ttlSeries, mastersSeries *dto.Metric
	problemSeries, holderSeries                            []*dto.Metric
}

// makeSeries makes e's series (once), in cluster.
func (e *lockEntry) makeSeries(cluster *dto.LabelPair) {
	if e.labels != nil {
		return
	}
	f := &e.figures
	path, recipe := pair("path", f.path), pair("recipe", f.recipe)
	e.labels = []*dto.LabelPair{cluster, path, recipe}
	e.holdersSeries = gaugeOf(e.labels, f.holders)
	e.waitersSeries = gaugeOf(e.labels, f.waiters)
	if f.ttl != absent {
		e.ttlSeries = gaugeOf(e.labels, f.ttl)
	}
	if f.masters != absent {
		e.mastersSeries = gaugeOf(e.labels, f.masters)
	}
	for _, pc := range f.problems {
		ls := []*dto.LabelPair{cluster, pair("kind", string(pc.kind)), path, recipe, pair("severity", pc.severity)}
		e.problemSeries = append(e.problemSeries, gaugeOf(ls, pc.n))
	}
	for _, h := range f.holdersInfo {
		ls := []*dto.LabelPair{pair("client", h.client), cluster, pair("node", h.node), path, recipe, pair("session", h.session)}
		e.holderSeries = append(e.holderSeries, gaugeOf(ls, 1))
	}
}

func pair(name, value string) *dto.LabelPair { return &dto.LabelPair{Name: &name, Value: &value} }

func gaugeOf(labels []*dto.LabelPair, v float64) *dto.Metric {
	return &dto.Metric{Label: labels, Gauge: &dto.Gauge{Value: &v}}
}

func counterOf(labels []*dto.LabelPair, v float64) *dto.Metric {
	return &dto.Metric{Label: labels, Counter: &dto.Counter{Value: &v}}
}

// gauges are a scrape's series of ages, allocated together.
type gauges struct {
	metrics []dto.Metric
	values  []dto.Gauge
	floats  []float64
	n       int
}

func newGauges(n int) *gauges {
	return &gauges{metrics: make([]dto.Metric, n), values: make([]dto.Gauge, n), floats: make([]float64, n)}
}

// next is the next series, labels and value v.
func (g *gauges) next(labels []*dto.LabelPair, v float64) *dto.Metric {
	m, gv := &g.metrics[g.n], &g.values[g.n]
	g.floats[g.n] = v
	gv.Value = &g.floats[g.n]
	m.Label, m.Gauge = labels, gv
	g.n++
	return m
}
