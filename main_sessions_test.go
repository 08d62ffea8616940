package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// sessionsDoc is the part of `zkscope sessions --json` the tests read.
type sessionsDoc struct {
	Schema   int
	Sessions []struct {
		Session string
		Client  *string
		Member  *string
		Holds   []sessionsLockJSON
		WaitsOn []sessionsLockJSON `json:"waits_on"`
	}
}

type sessionsLockJSON struct {
	Lock, Recipe, Node, Mode string
	Ctime                    *string
	Seconds                  *int64
	OwnNode                  *bool `json:"own_node"`
}

// sessionsUntil runs `sessions ARGS --json` until ok accepts the document
// (60 s at most: the servers list a watch once its client has set it).
func sessionsUntil(t *testing.T, connect string, ok func(sessionsDoc) bool, args ...string) sessionsDoc {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := run(t, append([]string{"-s", connect, "sessions", "--json"}, args...)...)
		if err != nil {
			t.Fatal(err, out)
		}
		var doc sessionsDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err, out)
		}
		if ok(doc) {
			return doc
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions never as expected:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond) // polling the servers' view, with a deadline
	}
}

// TestSessionsEphemeralWait: a real kazoo client waiting on a plain
// ephemeral lock (create, or watch the node with exists) owns no node, yet
// `sessions` shows its wait on that lock, by the node it watches, next to
// the holder's hold.
func TestSessionsEphemeralWait(t *testing.T) {
	srv := zktest.Shared(t)
	base := zktest.Path(t)
	lock := base + "/leader"
	kz := zktest.StartKazoo(t, srv.ConnectString())
	kz.Acquire(t, "a", "ephemeral", lock)
	kz.Await(t, "a", "acquired")
	kz.Acquire(t, "b", "ephemeral", lock)
	kz.Await(t, "b", "waiting")

	doc := sessionsUntil(t, srv.ConnectString(), func(d sessionsDoc) bool {
		return len(d.Sessions) == 2 && len(d.Sessions[0].WaitsOn)+len(d.Sessions[1].WaitsOn) == 1
	}, base, "--locks")
	var held, waited int
	for _, s := range doc.Sessions {
		for _, l := range s.Holds {
			held++
			if l.Lock != lock || l.Node != lock || l.Ctime == nil || l.OwnNode != nil {
				t.Errorf("session %s holds %+v", s.Session, l)
			}
		}
		for _, l := range s.WaitsOn {
			waited++
			if l.Lock != lock || l.Node != lock || l.Recipe != "zookeeper.ephemeral-lock" || l.OwnNode == nil || *l.OwnNode || l.Ctime != nil || l.Seconds != nil {
				t.Errorf("session %s waits on %+v", s.Session, l)
			}
		}
	}
	if held != 1 || waited != 1 {
		t.Fatalf("held %d waited %d: %+v", held, waited, doc)
	}
	out, err := run(t, "-s", srv.ConnectString(), "sessions", base, "--locks")
	if err != nil || !strings.Contains(out, "holds "+lock) || !strings.Contains(out, "waits on "+lock+" (exclusive) watching "+lock) {
		t.Errorf("table: %v\n%s", err, out)
	}

	// Once b holds, nobody watches the node: below base it is no longer
	// told from any other ephemeral node, but asked for by its path it is.
	kz.Release(t, "a")
	kz.Await(t, "b", "acquired")
	sessionsUntil(t, srv.ConnectString(), func(d sessionsDoc) bool {
		return len(d.Sessions) == 1 && len(d.Sessions[0].Holds) == 1 && len(d.Sessions[0].WaitsOn) == 0
	}, lock, "--locks")
}
