package zkview

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestContactFollowsAnsweredRequests: the negotiated timeout comes from the
// server (clamped: the shared server's tick is 200 ms, so at least 400 ms),
// and the last contact is the send time of the latest answered request:
// never later than the call started, never earlier than the previous call.
func TestContactFollowsAnsweredRequests(t *testing.T) {
	cl := zktest.Shared(t)
	c := dial(t, Config{Servers: cl.Addrs(), SessionTimeout: 100 * time.Millisecond})
	if got := c.NegotiatedTimeout(); got != 400*time.Millisecond {
		t.Fatalf("negotiated timeout %s, want the server's minimum 400ms (requested 100ms)", got)
	}
	c2 := dial(t, Config{Servers: cl.Addrs(), SessionTimeout: 6 * time.Second})
	sid := c2.SessionID()
	before, to, ok := c2.Contact(sid)
	if !ok || to != 6*time.Second || before.IsZero() {
		t.Fatalf("after connect: contact %v timeout %s ok %v", before, to, ok)
	}
	for range 3 {
		start := time.Now()
		if _, _, err := c2.Conn().Exists("/"); err != nil {
			t.Fatal(err)
		}
		end := time.Now()
		got, _, _ := c2.Contact(sid)
		// go-zookeeper's own pings may be answered meanwhile: the contact
		// is at least our request's send time, and never after the reply.
		if got.Before(start) || got.After(end) {
			t.Fatalf("contact %s not within the request [%s, %s]", got, start, end)
		}
	}
	if _, _, ok := c2.Contact(sid + 1); ok {
		t.Fatal("contact reported for an unknown session")
	}
}

// TestFrameScannerPieces: frames split at any byte boundary give the same
// heads as whole frames.
func TestFrameScannerPieces(t *testing.T) {
	var stream []byte
	var want [][]byte
	for _, n := range []int{0, 3, 16, 40, 1 << 16} {
		body := make([]byte, n)
		for i := range body {
			body[i] = byte(i*7 + n)
		}
		stream = binary.BigEndian.AppendUint32(stream, uint32(n))
		stream = append(stream, body...)
		want = append(want, body[:min(n, 16)])
	}
	for _, step := range []int{1, 2, 5, 17, 1000, len(stream)} {
		var s frameScanner
		var got [][]byte
		for i := 0; i < len(stream); i += step {
			s.feed(stream[i:min(i+step, len(stream))], func(h []byte) { got = append(got, bytes.Clone(h)) })
		}
		if len(got) != len(want) {
			t.Fatalf("step %d: %d heads, want %d", step, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("step %d frame %d: head %x, want %x", step, i, got[i], want[i])
			}
		}
	}
}
