package common

import "strings"

// A Redis key's path in the tree: its names (split at ':') joined with
// '/', lock:orders:42 at /lock/orders/42. A name holding '/' or '%', or
// an empty one (a::b), is escaped (%2F, %25; an empty name is "%") so
// every key has exactly one path and back.

// RedisSeparator groups key names into the tree's levels.
const RedisSeparator = ":"

// RedisName escapes one name of a key for a path.
func RedisName(s string) string {
	if s == "" {
		return "%"
	}
	return strings.NewReplacer("%", "%25", "/", "%2F").Replace(s)
}

// UnRedisName is the name a path element stands for.
func UnRedisName(s string) string {
	if s == "%" {
		return ""
	}
	return strings.NewReplacer("%2F", "/", "%25", "%").Replace(s)
}

// RedisKeyOf is the key a tree path stands for ("" for the root).
func RedisKeyOf(p string) string {
	if p == "/" || p == "" {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		parts[i] = UnRedisName(s)
	}
	return strings.Join(parts, RedisSeparator)
}

// RedisPathOf is the tree path of key.
func RedisPathOf(key string) string {
	parts := strings.Split(key, RedisSeparator)
	for i, s := range parts {
		parts[i] = RedisName(s)
	}
	return "/" + strings.Join(parts, "/")
}
