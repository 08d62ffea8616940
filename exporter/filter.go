package exporter

import (
	"fmt"
	"path"
	"strings"
)

// Filter says which locks are served: a lock is when it matches an
// include pattern (or none is given) and no exclude pattern. A pattern is
// a path.Match glob over the lock's path (a Redis key), or a path whose
// subtree it names: /app matches /app and /app/locks/a.
type Filter struct {
	Include, Exclude []string
}

// Check refuses patterns path.Match cannot read.
func (f Filter) Check() error {
	for _, p := range append(append([]string(nil), f.Include...), f.Exclude...) {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("pattern %q: %w", p, err)
		}
	}
	return nil
}

// Keep reports whether the lock at p is served.
func (f Filter) Keep(p string) bool {
	if len(f.Include) > 0 && !matchAny(f.Include, p) {
		return false
	}
	return !matchAny(f.Exclude, p)
}

func matchAny(patterns []string, p string) bool {
	for _, pat := range patterns {
		if ok, _ := path.Match(pat, p); ok {
			return true
		}
		if under := strings.TrimSuffix(pat, "/"); under != "" && strings.HasPrefix(p, under+"/") {
			return true
		}
	}
	return false
}
