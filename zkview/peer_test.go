package zkview

import (
	"context"
	"errors"
	"github.com/zkscope/zkscope/zkview/fourlw"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/peer"
	"github.com/zkscope/zkscope/redisview/redistest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// otherServers are real servers that are not ZooKeeper: a redis-server, an
// HTTP server (net/http's, on a loopback port) and a port nobody listens
// on.
func otherServers(t *testing.T) (redis, web, closed string) {
	t.Helper()
	redis = redistest.Start(t).Addr
	h := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(h.Close)
	port, err := zktest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return redis, strings.TrimPrefix(h.URL, "http://"), "127.0.0.1:" + strconv.Itoa(port)
}

// TestConnectNamesWhatAnswers: a Redis port, an HTTP port and a closed
// port given as ZooKeeper fail the connect with what is there, not with
// the connect deadline; a member list where one answers connects. The
// HTTP ports are net/http's, which waits in silence for a request line,
// and ZooKeeper's own AdminServer (Jetty), which answers the connect
// request at once with "HTTP/1.1 400" and closes.
func TestConnectNamesWhatAnswers(t *testing.T) {
	redis, web, closed := otherServers(t)
	zkAddr := zktest.Shared(t).Addrs()[0]
	admin := zktest.Shared(t).Servers[0].AdminAddr
	// Far longer than naming takes: a connect that waits for its deadline
	// instead fails the test by its error.
	const patience = 2 * time.Minute

	for _, tc := range []struct {
		servers []string
		want    []string
	}{
		{[]string{redis}, []string{redis + " answered like Redis, not ZooKeeper", "give -s redis://" + redis}},
		{[]string{web}, []string{web + " answered like an HTTP server, not ZooKeeper", "client port"}},
		{[]string{admin}, []string{admin + " answered like an HTTP server, not ZooKeeper", "client port"}},
		{[]string{closed}, []string{closed + ": connection refused", "is ZooKeeper running there?"}},
		{[]string{closed, redis}, []string{"connect to " + closed + "," + redis + ": ", closed + ": connection refused", redis + " answered like Redis, not ZooKeeper"}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		c, err := Connect(ctx, Config{Servers: tc.servers, SessionTimeout: 4 * time.Second})
		cancel()
		if err == nil {
			c.Close()
			t.Errorf("%v: connected", tc.servers)
			continue
		}
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v; want one line naming what answered, before the deadline", tc.servers, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q does not say %q", tc.servers, err, w)
			}
		}
	}

	// ZooKeeper itself connects, alone and with a member down or a wrong
	// port in the list.
	for _, servers := range [][]string{{zkAddr}, {closed, zkAddr}, {redis, zkAddr}, {web, zkAddr}, {admin, zkAddr}} {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		c, err := Connect(ctx, Config{Servers: servers, SessionTimeout: 4 * time.Second})
		cancel()
		if err != nil {
			t.Errorf("%v: %v", servers, err)
			continue
		}
		if _, err := c.Get("/"); err != nil {
			t.Errorf("%v: read /: %v", servers, err)
		}
		c.Close()
	}
}

// TestOwnConnectionsNameWhatAnswers: the connections zkview opens itself
// — a four-letter word's, the multi-read sidecar's — name a Redis or HTTP
// port too.
func TestOwnConnectionsNameWhatAnswers(t *testing.T) {
	redis, web, _ := otherServers(t)
	c := dial(t, Config{Servers: zktest.Shared(t).Addrs()})
	for addr, what := range map[string]string{redis: "Redis", web: "an HTTP server"} {
		want := addr + " answered like " + what + ", not ZooKeeper"
		_, err := fourlw.FourLetterWord(context.Background(), nil, addr, "srvr", 2*time.Minute)
		if !peer.IsMismatch(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("srvr on %s: %v; want %q", addr, err, want)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		s, err := openSideSession(ctx, c, addr, defaultMultiReadLimits.maxReply, nil)
		cancel()
		if err == nil {
			s.Conn().Close()
		}
		if !peer.IsMismatch(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("multi-read session with %s: %v; want %q", addr, err, want)
		}
	}
}
