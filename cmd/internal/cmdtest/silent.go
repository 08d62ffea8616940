package cmdtest

import (
	"net"
	"testing"
	"time"
)

// SilentServer is a server address where a connection is taken (the
// kernel completes it) and never answered: a client that connects there
// gets no error to fail with, so only the input can make it fail.
type SilentServer struct{ l *net.TCPListener }

// NewSilentServer listens on a free loopback port until t ends.
func NewSilentServer(t *testing.T) SilentServer {
	t.Helper()
	l, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return SilentServer{l}
}

// Addr is the server's host:port.
func (s SilentServer) Addr() string { return s.l.Addr().String() }

// Connected reports whether anything connected since the last call: a
// connection made by a process that has exited waits in the listen queue.
func (s SilentServer) Connected() bool {
	got := false
	for {
		s.l.SetDeadline(time.Now().Add(100 * time.Millisecond))
		c, err := s.l.Accept()
		if err != nil {
			return got
		}
		c.Close()
		got = true
	}
}
