package zktest

import (
	"strings"
	"testing"
	"time"
)

func TestStandaloneServes(t *testing.T) {
	c := StartStandalone(t, Options{})
	out, err := FourLetterWord(c.Servers[0].ClientAddr, "mntr", 2*time.Second)
	if err != nil || !strings.Contains(out, "zk_server_state\tstandalone") {
		t.Fatalf("mntr: %v %q", err, out)
	}
}
