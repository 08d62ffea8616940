package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/cmd/internal/cmdtest"
)

// TestConfigContexts: get-contexts marks the current one, use-context
// rewrites only current_context, current-context prints it.
func TestConfigContexts(t *testing.T) {
	t.Setenv("ZKSCOPE_CONTEXT", "")
	cfg := filepath.Join(t.TempDir(), "config.toml")
	body := "# my contexts\ncurrent_context = \"local\"\n\n[contexts.local]\nservers = \"127.0.0.1:2181\"\n\n[contexts.prod]\nservers = \"zk1:2181\" # prod\nread_only = true\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := cmdtest.Run(t, "--config", cfg, "config", "get-contexts")
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) < 3 || strings.Join(strings.Fields(lines[1]), " ") != "* local 127.0.0.1:2181" || strings.Join(strings.Fields(lines[2]), " ") != "prod zk1:2181 yes" {
		t.Errorf("get-contexts: %v\n%s", err, out)
	}
	if out, err := cmdtest.Run(t, "--config", cfg, "config", "use-context", "prod"); err != nil {
		t.Fatalf("use-context: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(cfg)
	if want := strings.Replace(body, `current_context = "local"`, `current_context = "prod"`, 1); string(b) != want {
		t.Errorf("use-context changed more than current_context:\n%s", b)
	}
	if out, err := cmdtest.Run(t, "--config", cfg, "config", "current-context"); err != nil || out != "prod\n" {
		t.Errorf("current-context: %q, %v", out, err)
	}
	if st, _ := os.Stat(cfg); st.Mode().Perm() != 0o600 {
		t.Errorf("use-context changed the file's mode to %v", st.Mode().Perm())
	}
}
