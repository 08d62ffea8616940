package ui

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/detail"
	"github.com/zkscope/zkscope/ui/tree"
	"github.com/zkscope/zkscope/zkview"
)

// TestRedisGolden draws the Redis screen from plain values (no server):
// the keyspace grouped by ':' with a lock tagged, and a hash key's type,
// fields and TTL counting down five seconds after its read.
func TestRedisGolden(t *testing.T) {
	m := New(Options{Theme: "dark"})
	m.now = func() time.Time { return fixedTime }
	m = step(t, m, nil)
	m.width, m.height = 100, 22
	m.layout()
	m.state = zkview.ConnEvent{State: zkview.StateConnected, Server: "127.0.0.1:6379"}
	m.tree.Opened(
		tree.Listing{Path: "/", Names: []string{"cache", "lock", "orders-lock", "redisson_lock_queue"}},
		tree.Listing{Path: "/cache", Names: []string{"profile", "user"}})
	for p, below := range map[string]int32{"/cache/user": 1200, "/lock": 3, "/redisson_lock_queue": 1, "/cache/profile": 0, "/orders-lock": 0} {
		m.tree.SetNodes(common.Node{Path: p, HasStat: true, Stat: zk.Stat{NumChildren: below}})
	}
	m.tree.SetLock("/orders-lock", tree.LockTag{Kind: lockops.KindRedissonFairLock, Length: 3})
	m.tree.CursorTo("/cache/profile")
	m.detail.SetRedisMode(true)
	m.detail.Select("/cache/profile", common.Node{}, false, false)
	m.detail.SetRedis(detail.RedisKey{Key: "cache:profile", Value: redisview.Value{
		Name: "cache:profile", Server: "127.0.0.1:6379", Type: "hash", TTL: 90 * time.Second, At: fixedTime, Size: 3,
		Elements: []redisview.Element{{First: "color", Second: "blue"}, {First: "name", Second: "ada"}}}})
	m.detail.RedisTick(fixedTime.Add(5 * time.Second))
	m.detail.Sync()
	golden.RequireEqual(t, []byte(screen(m)))
}
