package redistest

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zkscope/zkscope/redisview"
)

// Clients starts a redis-server and returns zkscope's client to it and a
// plain go-redis client to make keys with, both closed when t ends.
func Clients(t testing.TB) (*Server, *redisview.Client, *redis.Client) {
	t.Helper()
	s := Start(t)
	eps, err := redisview.ParseServers(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	c, err := redisview.Open(redisview.Config{Servers: eps, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := redis.NewClient(&redis.Options{Addr: s.Addr})
	t.Cleanup(func() { c.Close(); r.Close() })
	return s, c, r
}
