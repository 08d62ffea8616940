package redisview

import (
	"strings"
	"testing"
)

func TestParseServers(t *testing.T) {
	es, err := ParseServers("redis://127.0.0.1:6379, rediss://u:secret@cache.example:6380/2,redis://[::1]")
	if err != nil {
		t.Fatal(err)
	}
	want := []Endpoint{
		{Addr: "127.0.0.1:6379"},
		{Addr: "cache.example:6380", DB: 2, TLS: true, Username: "u", Password: "secret"},
		{Addr: "[::1]:6379"},
	}
	if len(es) != len(want) {
		t.Fatalf("got %+v", es)
	}
	for i := range want {
		if es[i] != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, es[i], want[i])
		}
	}
	if !HasCredentials(es) || HasCredentials(es[:1]) {
		t.Error("HasCredentials")
	}
	for _, bad := range []string{"", "http://h:1", "redis://:1", "redis://h:99999", "redis://h:1/x", "redis://u:pw@h:1/x"} {
		_, err := ParseServers(bad)
		if err == nil {
			t.Errorf("%q parsed", bad)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("%q: the error shows the password: %v", bad, err)
		}
	}
	if !IsRedisServer(" REDIS://h:1") || IsRedisServer("zk1:2181") {
		t.Error("IsRedisServer")
	}
}

func TestFairLockKeys(t *testing.T) {
	for name, key := range map[string]string{"orders": "redisson_lock_queue:{orders}", "{app}:x": "redisson_lock_queue:{app}:x"} {
		if got := FairLockKey(QueuePrefix, name); got != key {
			t.Errorf("FairLockKey(%q) = %q, want %q", name, got, key)
		}
		if got := fairLockOf(key); got != name {
			t.Errorf("fairLockOf(%q) = %q, want %q", key, got, name)
		}
	}
}
