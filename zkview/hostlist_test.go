package zkview

import (
	"testing"
	"time"
)

// TestHostListReconnectsAtOnce: after a connection drops, the passes over
// the members are paced by short pauses (50 ms, doubling to 250 ms) taken
// in the dialer, not by go-zookeeper's second (retryStart), which is left
// to it once every failQueuedEvery of an outage so that queued requests
// still fail; a new connection starts the next outage from no pause.
func TestHostListReconnectsAtOnce(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for _, members := range [][]string{{"a:2181"}, {"a:2181", "b:2181", "c:2181"}} {
		h := &hostList{now: func() time.Time { return now }}
		if err := h.Init(members); err != nil {
			t.Fatal(err)
		}
		// The first connection: every member once, no pause.
		for range members {
			if _, retry := h.Next(); retry || h.pauseBeforeDial() != 0 {
				t.Fatalf("%v: the first pass paused", members)
			}
		}
		h.Connected()
		// The member is gone: it is tried again at once (the others
		// first), then after pauses that grow to retryPauseMax.
		var pauses []time.Duration
		for i := 0; i < 6*len(members); i++ {
			_, retry := h.Next()
			if retry {
				t.Fatalf("%v: retryStart %s into the outage: go-zookeeper would pause a second", members, time.Duration(i)*retryPauseMax)
			}
			if d := h.pauseBeforeDial(); d > 0 {
				pauses = append(pauses, d)
				now = now.Add(d)
			}
		}
		want := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond}
		if len(pauses) != len(want) {
			t.Fatalf("%v: pauses %v, want %v", members, pauses, want)
		}
		for i := range want {
			if pauses[i] != want[i] {
				t.Fatalf("%v: pauses %v, want %v", members, pauses, want)
			}
		}
		// Once every failQueuedEvery go-zookeeper gets its second, to fail
		// the requests queued meanwhile.
		now = now.Add(failQueuedEvery)
		retried := false
		for range members {
			_, retry := h.Next()
			retried = retried || retry
		}
		if !retried {
			t.Fatalf("%v: no retryStart after %s of outage: queued requests would wait", members, failQueuedEvery)
		}
		h.Connected()
		for range len(members) - 1 {
			if _, retry := h.Next(); retry || h.pauseBeforeDial() != 0 {
				t.Fatalf("%v: a new outage started with a pause", members)
			}
		}
	}
}
