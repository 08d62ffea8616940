package fourlw

import (
	"testing"
	"time"
)

// TestParseConfFixtures parses the real `conf` and `wchs` replies of each role.
func TestParseConfFixtures(t *testing.T) {
	for _, role := range fixtureRoles {
		t.Run(role, func(t *testing.T) {
			c, err := ParseConf(fixture(t, role+"-conf.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if c.ClientPort == 0 || c.TickTime != 200*time.Millisecond || c.MaxSessionTimeout != 30*time.Second || c.MinSessionTimeout != 400*time.Millisecond {
				t.Errorf("conf: %+v", c)
			}
			if role == "standalone" {
				if c.ServerID != 0 || len(c.Servers) != 0 {
					t.Errorf("standalone conf: id %d servers %v", c.ServerID, c.Servers)
				}
			} else {
				if c.ServerID < 1 || len(c.Servers) != 3 || c.Version != "0" {
					t.Errorf("%s conf: id %d servers %v version %q", role, c.ServerID, c.Servers, c.Version)
				}
				for i, s := range c.Servers {
					if s.ID != int64(i+1) || s.Host != "127.0.0.1" || s.QuorumPort == 0 || s.ElectionPort == 0 || s.Role != "participant" || s.Client != "" {
						t.Errorf("server line %d: %+v", i, s)
					}
				}
			}
			w, err := ParseWchs(fixture(t, role+"-wchs.txt"))
			if err != nil {
				t.Fatal(err)
			}
			// One session with a data watch and an exists watch (the
			// children watch is not counted).
			if w != (Wchs{Connections: 1, Paths: 2, Watches: 2}) {
				t.Errorf("wchs: %+v", w)
			}
		})
	}
}

func TestParseConfServerLines(t *testing.T) {
	for _, tc := range []struct {
		line string
		want ConfServer
	}{
		{"server.1=10.0.0.1:2888:3888:participant;0.0.0.0:2181", ConfServer{ID: 1, Host: "10.0.0.1", QuorumPort: 2888, ElectionPort: 3888, Role: "participant", Client: "10.0.0.1:2181"}},
		{"server.2=zk2:2888:3888:observer;2182", ConfServer{ID: 2, Host: "zk2", QuorumPort: 2888, ElectionPort: 3888, Role: "observer", Client: "zk2:2182"}},
		{"server.3=[::1]:2888:3888;[::1]:2183", ConfServer{ID: 3, Host: "::1", QuorumPort: 2888, ElectionPort: 3888, Role: "participant", Client: "[::1]:2183"}},
		{"server.4=zk4:2888:3888", ConfServer{ID: 4, Host: "zk4", QuorumPort: 2888, ElectionPort: 3888, Role: "participant"}},
	} {
		got, err := ParseConfServer(tc.line)
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v", tc.line, got, err, tc.want)
		}
	}
	for _, bad := range []string{"server.x=a:1:2", "server.1=a", "clientPort=1"} {
		if _, err := ParseConfServer(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	servers, version, err := ParseDynamicConfig("server.1=a:1:2:participant;3\nserver.2=b:1:2:participant;3\nversion=100000000\n")
	if err != nil || len(servers) != 2 || version != "100000000" || servers[1].Client != "b:3" {
		t.Errorf("dynamic config: %+v %q %v", servers, version, err)
	}
	if _, err := ParseWchs("nonsense"); err == nil {
		t.Error("wchs nonsense: no error")
	}
	if _, err := ParseConf("nonsense"); err == nil {
		t.Error("conf nonsense: no error")
	}
}
