package detail

// The body for a Redis key: its type, remaining time counting down with
// the ticks, and its value (a string through the same viewers as a
// znode's data; the first elements of a hash, list, set, sorted set or
// stream). A group of keys (a name with keys below it and no key of its
// own) says how many keys lie below it.

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
)

// RedisKey is what the pane shows of a Redis key or group of keys.
type RedisKey struct {
	Key   string // the key's (or group's) name
	Value redisview.Value
	// Group: no key of this name was read (Below keys start with Key:).
	Group bool
	Below int
}

// SetRedis shows k (a Redis key) in place of a znode's stat, data and ACL;
// the viewer chosen applies to a string's value.
func (d *Model) SetRedis(k RedisKey) {
	d.redis = &k
	d.node.Data = nil
	if k.Value.Type == "string" {
		d.node.Data = k.Value.Bytes
	}
	d.loaded, d.err = true, nil
	d.Invalidate()
}

// Redis is the Redis key shown (nil: a znode, or nothing read yet).
func (d *Model) Redis() *RedisKey { return d.redis }

// RedisTick moves a Redis key's remaining time on to now.
func (d *Model) RedisTick(now time.Time) {
	if d.redis != nil && d.redis.Value.TTL > 0 {
		d.now = now
		d.Invalidate()
	}
}

// redisLines are the body of a Redis key or group.
func (d *Model) redisLines(width int) []string {
	st, k := d.st, d.redis
	kv := func(name, v string) string {
		return st.Key.Render(fmt.Sprintf("%-8s", name)) + st.Value.Render(v)
	}
	if k.Group {
		name := printable.String(k.Key) + redisview.Separator + "…"
		if k.Key == "" {
			name = "every key"
		}
		return []string{st.Section.Render("group"), kv("name", name),
			kv("keys", fmt.Sprintf("%d below (as listed)", k.Below)), "", st.Muted.Render("Open it (→) to list the names under it.")}
	}
	v := k.Value
	if v.Type == "none" {
		return []string{st.Warning.Render("This key no longer exists (it expired or was deleted)."), "", st.Muted.Render("Press r to list its group again.")}
	}
	lines := []string{st.Section.Render("key"), kv("name", printable.String(k.Key)), kv("type", printable.String(v.Type)+" · "+redisSizeText(v)), kv("ttl", d.ttlText(v))}
	if v.Server != "" {
		lines = append(lines, kv("server", printable.String(v.Server)))
	}
	if k.Below > 0 {
		lines = append(lines, kv("below", fmt.Sprintf("%d keys start with %s%s", k.Below, printable.String(k.Key), redisview.Separator)))
	}
	if v.Type == "string" {
		lines = append(lines, d.dataLines(width)...)
		if v.Truncated() {
			lines = append(lines, st.Muted.Render(fmt.Sprintf("… the first %s of %s shown", sizeText(len(v.Bytes)), sizeText(int(v.Size)))))
		}
		return lines
	}
	lines = append(lines, "", st.Section.Render("value"))
	lines = append(lines, d.elementLines(v, width)...)
	if v.Truncated() {
		lines = append(lines, st.Muted.Render(fmt.Sprintf("… %d more not shown", v.Size-int64(len(v.Elements)))))
	}
	return lines
}

// ttlText is the key's remaining time as of the last tick.
func (d *Model) ttlText(v redisview.Value) string {
	if v.TTL == redisview.NoExpiry {
		return "no expiry"
	}
	now := d.now
	if now.Before(v.At) {
		now = v.At
	}
	left := v.TTL - now.Sub(v.At)
	if left <= 0 {
		return "expired (" + lockops.FormatAge(-left) + " ago, if nobody extended it)"
	}
	return lockops.FormatAge(left) + " left"
}

func redisSizeText(v redisview.Value) string {
	switch v.Type {
	case "string":
		return sizeText(int(v.Size))
	case "hash":
		return fmt.Sprintf("%d fields", v.Size)
	}
	return fmt.Sprintf("%d elements", v.Size)
}

// elementLines draw a hash's fields, a sorted set's scores, a stream's
// entries or a list's or set's members, one a line, cut to width.
func (d *Model) elementLines(v redisview.Value, width int) []string {
	st := d.st
	left := 0
	for _, e := range v.Elements {
		switch v.Type {
		case "hash", "stream":
			left = max(left, min(ansi.StringWidth(printable.String(e.First)), width/3))
		case "zset":
			left = max(left, min(ansi.StringWidth(printable.String(e.Second)), width/3))
		}
	}
	out := make([]string, 0, len(v.Elements))
	for i, e := range v.Elements {
		var a, b string
		switch v.Type {
		case "hash", "stream":
			a, b = e.First, e.Second
		case "zset":
			a, b = e.Second, e.First
		case "list":
			a, b = fmt.Sprint(i), e.First
			left = max(left, len(fmt.Sprint(len(v.Elements)-1)))
		default:
			out = append(out, st.Data.Render(cut(e.First, width)))
			continue
		}
		a = cut(a, left)
		a += strings.Repeat(" ", max(left-ansi.StringWidth(a), 0))
		out = append(out, st.Key.Render(a)+"  "+st.Data.Render(cut(b, max(width-left-2, 8))))
	}
	if len(out) == 0 {
		out = append(out, st.Muted.Render("(empty)"))
	}
	return out
}

// cut keeps s on one line of at most w cells, escaped
// ([printable.String]).
func cut(s string, w int) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", "⏎"), "\t", " ")
	return ansi.Truncate(printable.String(s), max(w, 1), "…")
}

// SetRedisMode says the pane shows Redis keys: until a key's read
// answers it says so rather than drawing a znode's stat.
func (d *Model) SetRedisMode(on bool) { d.redisMode = on }

// redisTitle names the key shown in the pane's title (lock:orders:42, not
// its tree path); a group of keys ends with the separator and "…", the
// top level is "keys".
func (d *Model) redisTitle() string {
	key := common.RedisKeyOf(d.path)
	switch {
	case key == "":
		return "keys"
	case d.redis != nil && d.redis.Group:
		return key + redisview.Separator + "…"
	}
	return key
}
