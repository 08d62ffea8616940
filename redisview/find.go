package redisview

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// DefaultFindLimit is how many names [Client.FindKeys] keeps at most.
const DefaultFindLimit = 10_000

// FindOptions tune [Client.FindKeys].
type FindOptions struct {
	// Limit is how many names to keep before stopping (0:
	// DefaultFindLimit).
	Limit int
	// Progress, when set, gets the count of names found after each SCAN
	// call.
	Progress func(found int)
}

// MatchContaining is the SCAN MATCH pattern of every key starting with
// prefix whose rest contains term, ASCII letters of term in either case
// ("lock:", "ord" → lock:*[oO][rR][dD]*); glob characters are escaped.
func MatchContaining(prefix, term string) string {
	var b strings.Builder
	b.WriteString(MatchPrefix(prefix))
	for _, r := range term {
		lower, upper := strings.ToLower(string(r)), strings.ToUpper(string(r))
		switch {
		case r < 0x80 && lower != upper:
			b.WriteString("[" + lower + upper + "]")
		case strings.ContainsRune(`*?[]\`, r):
			b.WriteString(`\` + string(r))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('*')
	return b.String()
}

// FindKeys is the names of the keys starting with prefix that contain
// term (ASCII letters in either case), on every server (SCAN MATCH, never
// KEYS), merged and sorted; truncated when the limit stopped it. A server
// that fails is an error only when every server does.
func (c *Client) FindKeys(ctx context.Context, prefix, term string, o FindOptions) (names []string, truncated bool, err error) {
	if o.Limit <= 0 {
		o.Limit = DefaultFindLimit
	}
	match := MatchContaining(prefix, term)
	seen := map[string]bool{}
	var errs []error
	for i, r := range c.clients {
		var cursor uint64
		for len(seen) < o.Limit {
			keys, next, err := r.Scan(ctx, cursor, match, scanCount).Result()
			if err != nil {
				errs = append(errs, fmt.Errorf("find %s on %s: %w", match, c.eps[i].Addr, err))
				break
			}
			for _, k := range keys {
				seen[k] = true
			}
			if o.Progress != nil {
				o.Progress(len(seen))
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	for k := range seen {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) > o.Limit {
		names = names[:o.Limit]
	}
	if len(errs) > 0 && len(errs) == len(c.clients) {
		return names, false, errors.Join(errs...)
	}
	return names, len(seen) >= o.Limit, nil
}
