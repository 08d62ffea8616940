package exporter_test

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zkscope/zkscope/exporter"
)

// TestAlertRules: the shipped alert rules pass `promtool check rules`
// and their unit tests (`promtool test rules`), and name only metrics the
// exporter serves and problem kinds zkscope diagnoses.
func TestAlertRules(t *testing.T) {
	promtool := tool(t, "promtool")
	for _, args := range [][]string{{"check", "rules", "alerts.yml"}, {"test", "rules", "testdata/alerts_test.yml"}} {
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	rules, err := os.ReadFile("alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	names := exporter.MetricNames()
	for _, m := range regexp.MustCompile(`expr: .*`).FindAllString(string(rules), -1) {
		for _, name := range regexp.MustCompile(`zkscope_[a-z_]+`).FindAllString(m, -1) {
			if !slices.Contains(names, name) {
				t.Errorf("alerts.yml: %s is no metric of the exporter (%s)", name, m)
			}
		}
	}
	problems, err := os.ReadFile("../lockops/problems.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`kind=~?"([^"]+)"`).FindAllStringSubmatch(string(rules), -1) {
		for _, kind := range strings.Split(m[1], "|") {
			if !strings.Contains(string(problems), `ProblemKind = "`+kind+`"`) {
				t.Errorf("alerts.yml: %q is no problem kind of lockops", kind)
			}
		}
	}
}
