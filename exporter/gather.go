package exporter

import (
	"cmp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/zkscope/zkscope/lockops"
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

// Gatherer serves the clusters' models as metrics, a
// prometheus.Gatherer whose Gather reads memory only. What a lock serves
// is kept from one scrape to the next (its figures, label pairs and the
// series the clock does not change) and made again only for a lock whose
// queue changed (a model never changes a queue: a lock that changed is a
// new one); a scrape computes the ages from its clock, and the ranking
// of --max-locks again when a model changed.
type Gatherer struct {
	o       Options
	process prometheus.Gatherer // the process's own metrics; nil: none
	mu      sync.Mutex
	caches  []*clusterCache // by cluster label
}

// NewGatherer serves clusters with o, and process's metrics beside
// theirs when it is not nil.
func NewGatherer(clusters []*Cluster, o Options, process prometheus.Gatherer) *Gatherer {
	if o.Now == nil {
		o.Now = time.Now
	}
	g := &Gatherer{o: o, process: process}
	for _, c := range clusters {
		name := printable.String(c.Name()) // a label value: valid UTF-8, no controls
		g.caches = append(g.caches, &clusterCache{c: c, name: name, label: pair("cluster", name),
			entries: map[*lockops.Queue]*lockEntry{}})
	}
	slices.SortStableFunc(g.caches, func(a, b *clusterCache) int { return cmp.Compare(a.name, b.name) })
	return g
}

// Gather is every cluster's metrics as its model holds them now, and the
// process's.
func (g *Gatherer) Gather() ([]*dto.MetricFamily, error) {
	now := g.o.Now()
	out := metricFamilies{}
	g.mu.Lock()
	for _, cc := range g.caches {
		cc.refresh(g.o)
		cc.emit(out, now, g.o.MaxLocks > 0)
	}
	g.mu.Unlock()
	if mf := out[famHolderInfo]; mf != nil && len(g.caches) > 1 {
		slices.SortStableFunc(mf.Metric, byLabels) // its first label is client, not cluster
	}
	fams := make([]*dto.MetricFamily, 0, len(out)+64)
	for _, mf := range out {
		fams = append(fams, mf)
	}
	if g.process != nil {
		pf, err := g.process.Gather()
		if err != nil {
			return nil, err
		}
		fams = append(fams, pf...)
	}
	slices.SortFunc(fams, func(a, b *dto.MetricFamily) int { return cmp.Compare(a.GetName(), b.GetName()) })
	return fams, nil
}

// metricFamilies are a scrape's families, made as their first series is
// added (a family with none is not served).
type metricFamilies map[*family]*dto.MetricFamily

func (out metricFamilies) add(f *family, m *dto.Metric) {
	mf := out[f]
	if mf == nil {
		mf = &dto.MetricFamily{Name: &f.name, Help: &f.help, Type: &f.typ}
		out[f] = mf
	}
	mf.Metric = append(mf.Metric, m)
}

// clusterCache is what scrapes serve of one cluster, made again from its
// model when the model changed.
type clusterCache struct {
	c       *Cluster
	name    string
	label   *dto.LabelPair // cluster="name"
	version uint64         // the model's, as last read
	gen     uint64         // refreshes that found a change
	entries map[*lockops.Queue]*lockEntry
	ranked  []*lockEntry // the served locks, sorted byRank
	status  Status
	// locks: served on their own or summed; served: the locks served on
	// their own and the sum, sorted by path; summed: how many it sums.
	locks, summed        int
	served               []*lockEntry
	problems, holderInfo []*dto.Metric // sorted by their label values
}

// refresh reads the model's status, and its locks when they changed
// since the last refresh.
func (cc *clusterCache) refresh(o Options) {
	st, queues, v, changed := cc.c.locksSince(cc.version)
	cc.status = st
	if !changed {
		return
	}
	cc.version = v
	cc.rank(queues, o)
	kept, rest, summed := capLocks(cc.ranked, o.MaxLocks)
	kept = slices.Clone(kept)
	cc.locks, cc.summed = len(cc.ranked), summed
	if rest != nil {
		kept = append(kept, &lockEntry{figures: *rest, served: true})
	}
	for _, e := range kept {
		e.makeSeries(cc.label)
	}
	if o.MaxLocks > 0 {
		slices.SortFunc(kept, byLockPath)
	}
	cc.served = kept
	cc.problems, cc.holderInfo = cc.problems[:0], cc.holderInfo[:0]
	for _, e := range kept {
		cc.problems = append(cc.problems, e.problemSeries...)
		cc.holderInfo = append(cc.holderInfo, e.holderSeries...)
	}
	slices.SortFunc(cc.problems, byLabels)
	slices.SortFunc(cc.holderInfo, byLabels)
}

// rank brings cc.ranked up to date with queues (the model's locks now):
// the served locks sorted byRank (by path when all are served). A lock whose queue is the same keeps
// its entry and its place; the others are made and put in theirs (all
// sorted again when they are many).
func (cc *clusterCache) rank(queues []*lockops.Queue, o Options) {
	cc.gen++
	var made []*lockEntry
	for _, q := range queues {
		e := cc.entries[q]
		if e == nil {
			e = &lockEntry{served: o.Filter.Keep(q.Path)}
			if e.served {
				e.figures = figuresOf(q, o.HolderInfo)
				made = append(made, e)
			}
			cc.entries[q] = e
		}
		e.gen = cc.gen
	}
	for q, e := range cc.entries {
		if e.gen != cc.gen {
			delete(cc.entries, q)
		}
	}
	order := byRank
	if o.MaxLocks <= 0 {
		order = byLockPath
	}
	cc.ranked = slices.DeleteFunc(cc.ranked, func(e *lockEntry) bool { return e.gen != cc.gen })
	if len(made) > len(cc.ranked)/8 {
		cc.ranked = append(cc.ranked, made...)
		slices.SortFunc(cc.ranked, order)
		return
	}
	for _, e := range made {
		i, _ := slices.BinarySearchFunc(cc.ranked, e, order)
		cc.ranked = slices.Insert(cc.ranked, i, e)
	}
}

func byLockPath(a, b *lockEntry) int { return cmp.Compare(a.path, b.path) }

// byLabels orders series by their label values, in their labels' order
// (as Prometheus's registry does).
func byLabels(a, b *dto.Metric) int {
	for i := range min(len(a.Label), len(b.Label)) {
		if c := cmp.Compare(a.Label[i].GetValue(), b.Label[i].GetValue()); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.Label), len(b.Label))
}

// emit adds the cluster's series to out, the ages counted to now.
func (cc *clusterCache) emit(out metricFamilies, now time.Time, summed bool) {
	st, cl := cc.status, []*dto.LabelPair{cc.label}
	out.add(famLocks, gaugeOf(cl, float64(cc.locks)))
	out.add(famUp, gaugeOf(cl, b2f(st.Up)))
	if !st.LastRead.IsZero() {
		out.add(famLastRead, gaugeOf(cl, float64(st.LastRead.UnixMilli())/1000))
		out.add(famLastOK, gaugeOf(cl, b2f(st.LastOK)))
	}
	out.add(famReadErrors, counterOf(cl, float64(st.ReadErrors)))
	out.add(famEvents, counterOf(cl, float64(st.Events)))
	if st.Mode != ModeUnknown { // said only once known
		out.add(famFollowing, gaugeOf([]*dto.LabelPair{cc.label, pair("live", strconv.FormatBool(st.Mode.Live())),
			pair("mode", string(st.Mode))}, 1))
	}
	if summed {
		out.add(famSummed, gaugeOf(cl, float64(cc.summed)))
	}
	ages := newGauges(3 * len(cc.served))
	for _, e := range cc.served {
		out.add(famHolders, e.holdersSeries)
		out.add(famWaiters, e.waitersSeries)
		out.add(famOldestWait, ages.next(e.labels, since(e.waitFrom, now)))
		if !e.nodeAgeFrom.IsZero() {
			out.add(famNodeAge, ages.next(e.labels, since(e.nodeAgeFrom, now)))
		}
		if !e.heldFrom.IsZero() {
			out.add(famHeld, ages.next(e.labels, since(e.heldFrom, now)))
		}
		if e.ttlSeries != nil {
			out.add(famRedisTTL, e.ttlSeries)
		}
		if e.mastersSeries != nil {
			out.add(famRedlockMasters, e.mastersSeries)
		}
	}
	for _, m := range cc.problems {
		out.add(famProblems, m)
	}
	for _, m := range cc.holderInfo {
		out.add(famHolderInfo, m)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
