package root_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestCompletion: znode paths come from the server, flag values and
// context names from their lists; an unreachable server completes nothing
// within the completion timeout.
func TestCompletion(t *testing.T) {
	srv := zktest.Shared(t)
	s := srv.ConnectString()
	out, err := cmdtest.Run(t, "-s", s, "__complete", "get", "/zoo")
	if err != nil || !strings.Contains(out, "/zookeeper\n") {
		t.Errorf("path completion: %v\n%s", err, out)
	}
	out, _ = cmdtest.Run(t, "__complete", "lock", "/x", "--mode", "")
	if !strings.Contains(out, "exclusive\nread\nwrite\n") {
		t.Errorf("--mode completion:\n%s", out)
	}
	out, _ = cmdtest.Run(t, "__complete", "create", "/x", "--mode", "")
	if !strings.Contains(out, "container\n") {
		t.Errorf("create --mode completion:\n%s", out)
	}
	for _, args := range [][]string{{"get", "/", "-o", ""}, {"tree", "--output", ""}} {
		if out, _ := cmdtest.Run(t, append([]string{"__complete"}, args...)...); !strings.Contains(out, "json\nyaml\n") {
			t.Errorf("%v completion:\n%s", args, out)
		}
	}
	if out, _ := cmdtest.Run(t, "__complete", "--theme", ""); !strings.Contains(out, "high-contrast\n") {
		t.Errorf("--theme completion:\n%s", out)
	}
	if out, _ := cmdtest.Run(t, "__complete", "lock", "/x", "--recipe", ""); !strings.Contains(out, "curator\nkazoo\ngo-zk\n") {
		t.Errorf("--recipe completion:\n%s", out)
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[contexts.alpha]\nservers = \"a:2181\"\n[contexts.beta]\nservers = \"b:2181\"\n"), 0o600)
	if out, _ := cmdtest.Run(t, "--config", cfg, "__complete", "config", "use-context", ""); !strings.Contains(out, "alpha\nbeta\n") {
		t.Errorf("use-context completion:\n%s", out)
	}
	if out, _ := cmdtest.Run(t, "--config", cfg, "__complete", "--context", ""); !strings.Contains(out, "alpha\nbeta\n") {
		t.Errorf("--context completion:\n%s", out)
	}
	// A server that never answers: completion gives up by its own bound
	// (completionTimeout), not the session timeout's minutes.
	silent := cmdtest.NewSilentServer(t)
	out, err = cmdtest.Run(t, "-s", silent.Addr(), "--session-timeout", "5m", "__complete", "get", "/")
	if err != nil || strings.Contains(out, "/zookeeper") || !strings.Contains(out, ":") {
		t.Errorf("completion against a server that never answers: %v\n%s", err, out)
	}
}
