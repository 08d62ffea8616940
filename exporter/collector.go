package exporter

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zkscope/zkscope/printable"
)

// Options say what a scrape serves.
type Options struct {
	// Filter selects the locks served.
	Filter Filter
	// MaxLocks is how many locks of a cluster are served each on their
	// own (0: all); the rest are summed into path="(other)".
	MaxLocks int
	// HolderInfo serves zkscope_lock_holder_info (who holds each lock).
	HolderInfo bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Collector serves the clusters' models as metrics: a
// prometheus.Collector whose Collect reads memory only.
type Collector struct {
	clusters []*Cluster
	o        Options
}

// NewCollector serves clusters with o.
func NewCollector(clusters []*Cluster, o Options) *Collector {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Collector{clusters: clusters, o: o}
}

// Describe sends every metric's descriptor.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) { describeAll(ch) }

// Collect sends every cluster's metrics, as its model holds them now.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	now := c.o.Now()
	for _, cl := range c.clusters {
		st, queues := cl.snapshot()
		fs := make([]figures, 0, len(queues))
		for _, q := range queues {
			if c.o.Filter.Keep(q.Path) {
				fs = append(fs, figuresOf(q, now, c.o.HolderInfo))
			}
		}
		name := printable.String(st.Name) // a label value: valid UTF-8, no controls
		collectCluster(ch, st, name, len(fs))
		kept, rest, summed := capLocks(fs, c.o.MaxLocks)
		for i := range kept {
			collectLock(ch, name, &kept[i])
		}
		if rest != nil {
			collectLock(ch, name, rest)
		}
		if c.o.MaxLocks > 0 {
			gauge(ch, descSummed, float64(summed), name)
		}
	}
}

func collectCluster(ch chan<- prometheus.Metric, st Status, name string, locks int) {
	gauge(ch, descLocks, float64(locks), name)
	gauge(ch, descUp, b2f(st.Up), name)
	if !st.LastRead.IsZero() {
		gauge(ch, descLastRead, float64(st.LastRead.UnixMilli())/1000, name)
		gauge(ch, descLastOK, b2f(st.LastOK), name)
	}
	ch <- prometheus.MustNewConstMetric(descReadErrors, prometheus.CounterValue, float64(st.ReadErrors), name)
	ch <- prometheus.MustNewConstMetric(descEvents, prometheus.CounterValue, float64(st.Events), name)
	if st.Mode != ModeUnknown { // said only once known
		gauge(ch, descFollowing, 1, name, string(st.Mode), strconv.FormatBool(st.Mode.Live()))
	}
}

func collectLock(ch chan<- prometheus.Metric, cluster string, f *figures) {
	gauge(ch, descHolders, f.holders, cluster, f.path, f.recipe)
	gauge(ch, descWaiters, f.waiters, cluster, f.path, f.recipe)
	gauge(ch, descOldestWait, f.oldestWait, cluster, f.path, f.recipe)
	for _, opt := range []struct {
		d *prometheus.Desc
		v float64
	}{{descNodeAge, f.nodeAge}, {descHeld, f.held}, {descRedisTTL, f.ttl}, {descRedlockMasters, f.masters}} {
		if opt.v != absent {
			gauge(ch, opt.d, opt.v, cluster, f.path, f.recipe)
		}
	}
	for _, pc := range f.problems {
		gauge(ch, descProblems, pc.n, cluster, f.path, f.recipe, string(pc.kind), pc.severity)
	}
	for _, h := range f.holdersInfo {
		gauge(ch, descHolderInfo, 1, cluster, f.path, f.recipe, h.node, h.session, h.client)
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
