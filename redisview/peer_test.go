package redisview

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/peer"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestReadNamesWhatAnswers: a ZooKeeper port and an HTTP port given as
// redis:// fail with what is there, not with "EOF" or "invalid reply".
func TestReadNamesWhatAnswers(t *testing.T) {
	zk := zktest.StartStandalone(t, zktest.Options{}).Addrs()[0]
	h := httptest.NewServer(http.NotFoundHandler())
	defer h.Close()
	web := strings.TrimPrefix(h.URL, "http://")
	for addr, what := range map[string]string{zk: "ZooKeeper", web: "an HTTP server"} {
		c, err := Open(Config{Servers: []Endpoint{{Addr: addr}}, DialTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		r := c.ReadLocks(ctx, "*")[0]
		cancel()
		c.Close()
		want := addr + " answered like " + what + ", not Redis"
		if !peer.IsMismatch(r.Err) || !strings.Contains(r.Err.Error(), want) {
			t.Errorf("read from %s: %v; want %q", addr, r.Err, want)
		}
	}
}
