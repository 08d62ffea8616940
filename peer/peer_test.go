package peer_test

import (
	"context"
	"net"
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

func dialTCP(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// TestProbe asks real servers what they are: redis-server, net/http's
// server and ZooKeeper are named; a port that is closed, or that takes
// the connection and never answers, is Unknown.
func TestProbe(t *testing.T) {
	redis := redistest.Start(t).Addr
	h := httptest.NewServer(http.NotFoundHandler())
	defer h.Close()
	web := strings.TrimPrefix(h.URL, "http://")
	zk := zktest.StartStandalone(t, zktest.Options{}).Addrs()[0]
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	port, err := zktest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	closed := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))

	for _, tc := range []struct {
		addr string
		ask  []byte
		want peer.Kind
	}{
		{redis, peer.AskNotZooKeeper, peer.Redis},
		{web, peer.AskNotZooKeeper, peer.HTTP},
		{web, []byte("*1\r\n$4\r\nPING\r\n"), peer.HTTP}, // what a Redis client sends
		{zk, peer.AskZooKeeper, peer.ZooKeeper},
		{closed, peer.AskNotZooKeeper, peer.Unknown},
		{silent.Addr().String(), peer.AskNotZooKeeper, peer.Unknown},
	} {
		if got := peer.Probe(context.Background(), dialTCP, tc.addr, tc.ask, 500*time.Millisecond); got != tc.want {
			t.Errorf("probe %s with %q: %v, want %v", tc.addr, tc.ask, got, tc.want)
		}
	}
}

// TestRecognise: the first bytes of each kind's answers, as the servers
// send them (see TestProbe for the real ones).
func TestRecognise(t *testing.T) {
	for in, want := range map[string]peer.Kind{
		"-ERR unknown command 'srvr', with args beginning with: \r\n": peer.Redis,
		"-DENIED Redis is running in protected mode\r\n":              peer.Redis,
		"-NOAUTH Authentication required.\r\n":                        peer.Redis,
		"+PONG\r\n":                                                   peer.Redis,
		"-E":                                                          peer.Unknown, // not yet a whole word
		"HTTP/1.1 400 Bad Request\r\n":                                peer.HTTP,
		"<!DOCTYPE HTML>\n<html lang=\"en\">":                         peer.HTTP,
		"Zookeeper version: 3.8.0-${mvngit.commit.id}, built on 2024-12-29\n": peer.ZooKeeper,
		"srvr is not executed because it is not in the whitelist.\n":          peer.ZooKeeper,
		"This ZooKeeper instance is not currently serving requests\n":         peer.ZooKeeper,
		"\x00\x00\x00\x24\x00\x00\x00\x00\x00\x00\x0f\xa0":                    peer.Unknown, // a connect response
		"SSH-2.0-OpenSSH_9.2p1\r\n":                                           peer.Unknown,
	} {
		if got := peer.Recognise([]byte(in)); got != want {
			t.Errorf("Recognise(%q) = %v, want %v", in, got, want)
		}
	}
}
