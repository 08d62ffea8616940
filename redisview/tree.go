package redisview

// The keyspace as a tree: names grouped by a separator (":"), listed one
// level at a time with SCAN MATCH prefix* (never KEYS), so opening a group
// costs one pass of SCAN and nothing is read below it until it is opened.
// A huge keyspace is listed in pieces: the caller sees the level grow
// (Progress) and a level stops at a limit of keys seen (Truncated).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Separator is what groups key names into levels ("lock:orders:42" is
// 42 in orders in lock).
const Separator = ":"

// DefaultListLimit is how many keys one level's listing looks at before it
// stops (Level.Truncated).
const DefaultListLimit = 1_000_000

// Child is one name of a level: a key, a group of keys further down, or
// both ("lock:orders" a key and "lock:orders:42" another).
type Child struct {
	Name  string
	IsKey bool
	// Below is how many keys lie further down (0: a key only).
	Below int
}

// Level is the listing of the names directly under Prefix ("" for the
// top, else a group's name and the separator: "lock:orders:").
type Level struct {
	Prefix   string
	Children []Child // sorted by name
	// Scanned is how many keys matching Prefix were seen (a key SCAN
	// returned twice counts twice); Done when SCAN went round.
	Scanned   int
	Done      bool
	Truncated bool // stopped at the limit: some names may be missing
	// Failed names the servers that could not be listed (their errors):
	// the names are the others'.
	Failed []string
}

// ListOptions tune [Client.ListLevel].
type ListOptions struct {
	// Limit is how many keys to look at before stopping (0:
	// DefaultListLimit).
	Limit int
	// Count is SCAN's COUNT hint (0: 1000).
	Count int64
	// Progress, when set, gets the level as found so far, at most every
	// ProgressEvery (0: 100ms) while SCAN goes on.
	Progress      func(Level)
	ProgressEvery time.Duration
}

// MatchPrefix is the SCAN MATCH pattern of every key starting with
// prefix: its glob characters escaped, then *.
func MatchPrefix(prefix string) string {
	var b strings.Builder
	for _, r := range prefix {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('*')
	return b.String()
}

// levelBuilder gathers a level's children as SCAN returns keys.
type levelBuilder struct {
	prefix string
	kids   map[string]*Child
	seen   int
}

func (lb *levelBuilder) add(key string) {
	rest, ok := strings.CutPrefix(key, lb.prefix)
	if !ok {
		return
	}
	lb.seen++
	name, _, below := strings.Cut(rest, Separator)
	c := lb.kids[name]
	if c == nil {
		c = &Child{Name: name}
		lb.kids[name] = c
	}
	if below {
		c.Below++
	} else {
		c.IsKey = true
	}
}

func (lb *levelBuilder) level() Level {
	l := Level{Prefix: lb.prefix, Scanned: lb.seen, Children: make([]Child, 0, len(lb.kids))}
	for _, c := range lb.kids {
		l.Children = append(l.Children, *c)
	}
	slices.SortFunc(l.Children, func(a, b Child) int { return strings.Compare(a.Name, b.Name) })
	return l
}

// ListLevel lists the names directly under prefix ("" the top; else end
// it with [Separator]) on every server, merged (the masters of a Redlock
// hold the same names). A server that fails is named in Level.Failed;
// only all failing is an error. A key seen twice by SCAN (it may return
// one twice) counts twice in Below: the counts are what SCAN saw, not
// exact.
func (c *Client) ListLevel(ctx context.Context, prefix string, o ListOptions) (Level, error) {
	if o.Limit <= 0 {
		o.Limit = DefaultListLimit
	}
	if o.Count <= 0 {
		o.Count = scanCount
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 100 * time.Millisecond
	}
	s := &levelScan{lb: levelBuilder{prefix: prefix, kids: map[string]*Child{}}, o: o, match: MatchPrefix(prefix), last: time.Now(), every: o.ProgressEvery}
	var errs []error
	for i, r := range c.clients {
		if err := s.server(ctx, r); err != nil {
			err = fmt.Errorf("list %s* on %s: %w", prefix, c.eps[i].Addr, err)
			errs = append(errs, err)
			s.failed = append(s.failed, err.Error())
		}
		if s.lb.seen >= o.Limit {
			l := s.level()
			l.Truncated = true
			return l, nil
		}
	}
	l := s.level()
	if len(errs) == len(c.clients) {
		return l, errors.Join(errs...)
	}
	l.Done = true
	return l, nil
}

// levelScan is one listing in progress, across the servers.
type levelScan struct {
	lb     levelBuilder
	o      ListOptions
	match  string
	last   time.Time
	every  time.Duration
	failed []string
}

func (s *levelScan) level() Level {
	l := s.lb.level()
	l.Failed = s.failed
	return l
}

// server scans one server's keys into the level, until the limit.
func (s *levelScan) server(ctx context.Context, r *redis.Client) error {
	var cursor uint64
	for {
		keys, next, err := r.Scan(ctx, cursor, s.match, s.o.Count).Result()
		if err != nil {
			return err
		}
		for _, k := range keys {
			if s.lb.seen < s.o.Limit {
				s.lb.add(k)
			}
		}
		if cursor = next; cursor == 0 || s.lb.seen >= s.o.Limit {
			return nil
		}
		if s.o.Progress != nil && time.Since(s.last) >= s.every {
			// A level of a million names costs a while to copy and
			// sort: report at most a quarter of the time.
			start := time.Now()
			s.o.Progress(s.level())
			s.last = time.Now()
			s.every = max(s.o.ProgressEvery, 3*s.last.Sub(start))
		}
	}
}
