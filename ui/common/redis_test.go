package common

import "testing"

func TestRedisPathRoundTrip(t *testing.T) {
	for key, path := range map[string]string{
		"lock:orders:42": "/lock/orders/42",
		"a::b":           "/a/%/b",
		":lead":          "/%/lead",
		"trail:":         "/trail/%",
		"cache:/api/v1":  "/cache/%2Fapi%2Fv1",
		"100%:x":         "/100%25/x",
		"%":              "/%25",
		"plain":          "/plain",
	} {
		if got := RedisPathOf(key); got != path {
			t.Errorf("RedisPathOf(%q) = %q, want %q", key, got, path)
		}
		if got := RedisKeyOf(path); got != key {
			t.Errorf("RedisKeyOf(%q) = %q, want %q", path, got, key)
		}
	}
	if RedisKeyOf("/") != "" {
		t.Error("the root is no key")
	}
}
