package cmdtest

import (
	"encoding/json"
	"testing"
	"time"
)

// SessionsDoc is the part of `zkscope sessions --json` the tests read.
type SessionsDoc struct {
	Schema   int
	Sessions []struct {
		Session string
		Client  *string
		Member  *string
		Holds   []SessionsLock
		WaitsOn []SessionsLock `json:"waits_on"`
	}
}

// SessionsLock is a lock a session holds or waits on, in SessionsDoc.
type SessionsLock struct {
	Lock, Recipe, Node, Mode string
	Ctime                    *string
	Seconds                  *int64
	OwnNode                  *bool `json:"own_node"`
}

// SessionsUntil runs `sessions ARGS --json` until ok accepts the document
// (60 s at most: the servers list a watch once its client has set it).
func SessionsUntil(t *testing.T, connect string, ok func(SessionsDoc) bool, args ...string) SessionsDoc {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := Run(t, append([]string{"-s", connect, "sessions", "--json"}, args...)...)
		if err != nil {
			t.Fatal(err, out)
		}
		var doc SessionsDoc
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
