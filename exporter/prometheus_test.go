package exporter_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// tool is the path of a binary of the Debian prometheus package: a skip
// without it, a failure with CI=true.
func tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		msg := name + " is not installed; install with: apt-get install prometheus"
		if zktest.InCI() {
			t.Fatalf("CI=true and a real part is missing: %s", msg)
		}
		t.Skip(msg)
	}
	return p
}

// startPrometheus starts a Prometheus server on a free loopback port
// with a temp dir, scraping target (host:port) every second; it is
// stopped when t ends. It returns the server's base URL.
func startPrometheus(t testing.TB, target string) string {
	t.Helper()
	bin := tool(t, "prometheus")
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: zkscope\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	port, err := zktest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr, "--log.level=warn")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	waitFor(t, "prometheus to be ready", 60*time.Second, func() bool {
		resp, err := httpClient.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return base
}

// promResult is one series of an instant query's answer.
type promResult struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// query asks Prometheus's HTTP API for q now.
func query(t testing.TB, base, q string) []promResult {
	t.Helper()
	body := get(t, base+"/api/v1/query?query="+url.QueryEscape(q))
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []promResult `json:"result"`
		} `json:"data"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Status != "success" {
		t.Fatalf("query %s: %v %s %s", q, err, r.Error, body)
	}
	return r.Data.Result
}

// promtoolCheckMetrics runs `promtool check metrics` on an exposition.
func promtoolCheckMetrics(t testing.TB, exposition string) {
	t.Helper()
	cmd := exec.Command(tool(t, "promtool"), "check", "metrics")
	cmd.Stdin = strings.NewReader(exposition)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
