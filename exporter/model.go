// Package exporter keeps the locks of one or several clusters (ZooKeeper
// ensembles, Redis servers) in memory and serves them as Prometheus
// metrics: a [Source] per cluster keeps its [Cluster] up to date (watches
// on ZooKeeper through lockops/follow, bounded periodic reads on Redis),
// and every scrape is answered from memory by the [Gatherer], never by a
// read of a server. What a metric means is its help text (metrics.go);
// `zkscope exporter` (cmd/exporter) wires the flags to it.
package exporter

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/follow"
)

// Mode is how a cluster's model is kept up to date.
type Mode string

const (
	// ModeUnknown: not known yet (a ZooKeeper cluster before its first
	// read says how it is followed).
	ModeUnknown Mode = ""
	// ModeWatches: ZooKeeper children watches on the lock directories and
	// a full scan every interval (lockops/follow).
	ModeWatches Mode = Mode(follow.ModeChildWatches)
	// ModePersistentWatches: ZooKeeper persistent recursive watches.
	ModePersistentWatches Mode = Mode(follow.ModeEvents)
	// ModePolling: a bounded read every interval (Redis).
	ModePolling Mode = "polling"
)

// Live reports whether m follows changes as they happen (watches), as
// opposed to reading again every interval.
func (m Mode) Live() bool { return m != ModePolling }

// Cluster is one cluster's locks as last read, and how reading them goes.
// Its sources write it ([Cluster.Apply], [Cluster.Fail]); scrapes read it.
// The locks of a path whose last read failed are not served: a model that
// may be out of date is never shown as the present.
type Cluster struct {
	name string
	mode Mode

	mu         sync.Mutex
	roots      map[string]*root // by followed path (ZooKeeper) or key pattern (Redis)
	order      []string         // the roots, as given
	lastRead   time.Time        // the last read's end, whatever its outcome
	lastOK     bool
	lastErr    string
	readErrors uint64
	events     uint64
	// version counts the changes of the locks served (an Apply, a Fail):
	// a scrape makes what it serves of them again only when it moved.
	version uint64
}

// root is what one followed path's reads found.
type root struct {
	locks follow.Locks
	fresh bool // read and not failed since
	mode  Mode // as its follow says (ModeUnknown: the cluster's)
}

// NewCluster is an empty model of the cluster name following roots (paths
// or key patterns) in mode m.
func NewCluster(name string, m Mode, roots []string) *Cluster {
	c := &Cluster{name: name, mode: m, roots: map[string]*root{}}
	for _, r := range roots {
		if _, dup := c.roots[r]; !dup {
			c.roots[r] = &root{}
			c.order = append(c.order, r)
		}
	}
	return c
}

// Name is the cluster's label.
func (c *Cluster) Name() string { return c.name }

// Roots are the paths (or patterns) the cluster follows.
func (c *Cluster) Roots() []string { return slices.Clone(c.order) }

// Apply takes what a read of root found, every lock (at: when the read
// ended): the root is fresh again, and every lock whose participants
// changed counts as an event applied.
func (c *Cluster) Apply(rootPath string, queues []lockops.Queue, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.applyLocked(rootPath, follow.Snapshot{Queues: queues}, at)
}

// applyLocked takes s in: every lock, or only the changes (s.Changes).
func (c *Cluster) applyLocked(rootPath string, s follow.Snapshot, at time.Time) {
	r := c.roots[rootPath]
	if r == nil {
		return
	}
	if s.Changes {
		c.events += changed(&r.locks, s)
	} else {
		if !slices.IsSortedFunc(s.Queues, byPath) {
			s.Queues = slices.Clone(s.Queues)
			slices.SortFunc(s.Queues, byPath)
		}
		c.events += changes(r.locks.All(), s.Queues)
	}
	r.locks.Apply(s)
	if !s.Changes || len(s.Queues) > 0 || len(s.Gone) > 0 || !r.fresh {
		c.version++ // what is served changed
	}
	r.fresh = true
	if s.Mode != "" {
		r.mode = Mode(s.Mode)
	}
	c.lastRead, c.lastOK, c.lastErr = at, true, ""
}

func byPath(a, b lockops.Queue) int { return strings.Compare(a.Path, b.Path) }

// changed counts the locks of s (changes only) that differ from those of
// l: appeared, gone, or with other participants or problems.
func changed(l *follow.Locks, s follow.Snapshot) uint64 {
	var n uint64
	for _, p := range s.Gone {
		if l.Get(p) != nil {
			n++
		}
	}
	for i := range s.Queues {
		if old := l.Get(s.Queues[i].Path); old == nil || !sameQueue(old, &s.Queues[i]) {
			n++
		}
	}
	return n
}

// changes counts the locks that differ between old and cur (both sorted
// by path): appeared, gone, or with other participants or problems. A
// walk of both, allocating nothing.
func changes(old []*lockops.Queue, cur []lockops.Queue) uint64 {
	var n uint64
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || i < len(old) && old[i].Path < cur[j].Path:
			n++ // gone
			i++
		case i == len(old) || cur[j].Path < old[i].Path:
			n++ // appeared
			j++
		default:
			if !sameQueue(old[i], &cur[j]) {
				n++
			}
			i++
			j++
		}
	}
	return n
}

// sameQueue reports whether a and b have the same participants (node,
// state, data) and problem kinds.
func sameQueue(a, b *lockops.Queue) bool {
	if len(a.Participants) != len(b.Participants) || len(a.Problems) != len(b.Problems) {
		return false
	}
	for k := range a.Participants {
		pa, pb := &a.Participants[k], &b.Participants[k]
		if pa.Node != pb.Node || pa.State != pb.State || string(pa.Data) != string(pb.Data) {
			return false
		}
	}
	for k := range a.Problems {
		if a.Problems[k].Kind != b.Problems[k].Kind {
			return false
		}
	}
	return true
}

// Fail records a read of root that failed (every root when rootPath is
// ""): its locks are dropped until a read succeeds again.
func (c *Cluster) Fail(rootPath string, err error, at time.Time) {
	if err == nil {
		err = errors.New("read failed")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, r := range c.roots {
		if rootPath == "" || p == rootPath {
			r.locks, r.fresh = follow.Locks{}, false
		}
	}
	c.readErrors++
	c.version++
	c.lastRead, c.lastOK, c.lastErr = at, false, err.Error()
}

// Status is a cluster's reading, as a scrape and /healthz show it.
type Status struct {
	Name       string
	Mode       Mode
	Up         bool // every root read, none failed since
	LastRead   time.Time
	LastOK     bool
	LastErr    string
	ReadErrors uint64
	Events     uint64
}

// Status is the cluster's reading now.
func (c *Cluster) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.statusLocked()
}

func (c *Cluster) statusLocked() Status {
	up := true
	for _, r := range c.roots {
		up = up && r.fresh
	}
	return Status{Name: c.name, Mode: c.modeLocked(), Up: up, LastRead: c.lastRead, LastOK: c.lastOK, LastErr: c.lastErr,
		ReadErrors: c.readErrors, Events: c.events}
}

// modeLocked is how the cluster is followed: as its roots' follows last
// said (children watches if any root is followed so), else as given.
func (c *Cluster) modeLocked() Mode {
	m := ModeUnknown
	for _, p := range c.order {
		switch rm := c.roots[p].mode; {
		case rm == ModeUnknown:
		case m == ModeUnknown || rm == ModeWatches:
			m = rm
		}
	}
	if m == ModeUnknown {
		return c.mode
	}
	return m
}

// locksSince is the cluster's status and, when the locks changed since
// version (changed), the locks of its fresh roots (a lock under two roots
// once) and the version they are. The queues are shared, never changed:
// an Apply puts a new queue in place of a lock that changed.
func (c *Cluster) locksSince(version uint64) (st Status, out []*lockops.Queue, now uint64, changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st = c.statusLocked()
	if version == c.version && version != 0 {
		return st, nil, version, false
	}
	var seen map[string]bool
	if len(c.order) > 1 {
		seen = map[string]bool{}
	}
	for _, p := range c.order {
		r := c.roots[p]
		if !r.fresh {
			continue
		}
		for _, q := range r.locks.All() {
			if seen == nil {
				out = append(out, q)
			} else if !seen[q.Path] {
				seen[q.Path] = true
				out = append(out, q)
			}
		}
	}
	return st, out, c.version, true
}
