package archtest

import "strings"

// The layering rules. Paths are relative to the module; a rule that names
// a folder covers the packages below it too.

// leaves import nothing of the module.
var leaves = []string{"lockops", "printable", "peer", "themes", "zkview/jute", "zkview/sasl", "internal/archtest"}

// dataLayers talk to one kind of server each; they import no lock, ui,
// command or config package, and not each other.
var dataLayers = []string{"zkview", "redisview", "dbview"}

// protocolEdges are the only imports of zkscope allowed to the packages
// that speak or read ZooKeeper's formats below zkview: they know nothing of
// a client, each other's jobs, or anything above them.
var protocolEdges = map[string][]string{
	"zkview/wire":   {"zkview/jute"},
	"zkview/txnlog": {"zkview/jute"},
	"zkview/fourlw": {"peer"},
}

// clientEdges are the only imports of zkscope allowed to the packages below
// zkview built on its client for one kind of caller (the UI's tree cache):
// zkview's client, never a lock, ui, command or config package.
var clientEdges = map[string][]string{
	"zkview/treecache": {"zkview"},
}

// lockEdges are the imports allowed between the lock packages (lockops/X;
// every one may import the recipe model, lockops): one way down, from
// acting to reporting, diagnosing and reading.
var lockEdges = map[string][]string{
	"lockops/lockrun":   {"lockops/take", "lockops/redislock", "lockops/dblock", "lockops/hold"},
	"lockops/take":      {"lockops/scan", "lockops/hold", "lockops/audit"},
	"lockops/evict":     {"lockops/scan", "lockops/audit"},
	"lockops/redislock": {"lockops/report", "lockops/hold", "lockops/audit"},
	"lockops/dblock":    {"lockops/report", "lockops/hold", "lockops/audit"},
	"lockops/history":   {"lockops/report"},
	"lockops/report":    {"lockops/diagnose"},
	"lockops/follow":    {"lockops/diagnose", "lockops/scan"},
	"lockops/diagnose":  {"lockops/scan"},
	"lockops/hold":      {"lockops/audit"},
}

// demoImports are the only folders the demo packages (demo, demo/herd)
// import from: servers and contenders, never a screen, command or config;
// the herd engine is the demo's sibling, not its user.
var demoImports = []string{"zkview", "lockops", "peer", "printable", "demo"}

// under reports whether p is dir or below it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if under(p, d) {
			return true
		}
	}
	return false
}

// forbidden says why from may not import to, or "" when it may.
func forbidden(from, to string, l Limits) string {
	if IsTestOnly(to, l) && !IsTestOnly(from, l) {
		return "a test helper, for tests only"
	}
	if to == "internal/archtest" {
		return "the architecture rules are imported by nothing"
	}
	for _, rule := range []func(from, to string) string{leafRule, protocolRule, dataRule, lockRule, exporterRule, uiRule, cmdRule, demoRule} {
		if why := rule(from, to); why != "" {
			return why
		}
	}
	return ""
}

func leafRule(from, to string) string {
	for _, leaf := range leaves {
		if from == leaf {
			return leaf + " imports nothing of zkscope"
		}
	}
	return ""
}

func protocolRule(from, to string) string {
	allowed, ok := protocolEdges[from]
	if !ok {
		allowed, ok = clientEdges[from]
	}
	if !ok {
		return ""
	}
	for _, a := range allowed {
		if to == a {
			return ""
		}
	}
	return from + " imports only " + strings.Join(allowed, ", ") + " of zkscope"
}

func dataRule(from, to string) string {
	for _, d := range dataLayers {
		if !under(from, d) {
			continue
		}
		if underAny(to, []string{"lockops", "ui", "cmd", "config", "demo", "treeprint", "exporter"}) {
			return d + " is a data layer: it imports no lock, ui, command or config package"
		}
		for _, other := range dataLayers {
			if other != d && under(to, other) {
				return "data layers do not import each other"
			}
		}
	}
	return ""
}

func lockRule(from, to string) string {
	if !under(from, "lockops") || from == "lockops" || !under(to, "lockops") || to == "lockops" {
		if under(from, "lockops") && underAny(to, []string{"ui", "cmd", "demo", "exporter"}) {
			return "the lock packages import no ui, command, demo or exporter package"
		}
		return ""
	}
	for _, ok := range lockEdges[from] {
		if to == ok {
			return ""
		}
	}
	return "not one of the lock packages' imports (one way down; see ARCHITECTURE.md)"
}

// exporterRule: the exporter sits beside the lock packages: it may import
// them, the data layers and config, never ui, the commands, demo or
// treeprint.
func exporterRule(from, to string) string {
	if under(from, "exporter") && underAny(to, []string{"ui", "cmd", "demo", "treeprint"}) {
		return "exporter imports no ui, command, demo or treeprint package"
	}
	return ""
}

func uiRule(from, to string) string {
	switch {
	case !under(from, "ui") && !under(from, "cmd") && under(to, "ui"):
		return "only the commands import ui"
	case under(from, "ui") && underAny(to, []string{"cmd", "demo"}):
		return "ui imports no command or demo package"
	case from == "ui" || !under(from, "ui") || !under(to, "ui"):
		return ""
	case from == "ui/common":
		return "ui/common imports no other ui package"
	case to == "ui/common" || from == "ui/lockpane" && to == "ui/dialog":
		return ""
	}
	return "ui components do not import each other (but ui/lockpane → ui/dialog)"
}

func cmdRule(from, to string) string {
	switch {
	case !under(to, "cmd"):
		return ""
	case from == "." && to == "cmd/root":
		return ""
	case !under(from, "cmd"):
		return "only main imports the command tree, through cmd/root"
	case from == "cmd/root" || under(to, "cmd/cmdutil") || under(to, "cmd/internal"):
		return ""
	}
	return "commands do not import each other; what they share is in cmd/cmdutil"
}

func demoRule(from, to string) string {
	switch {
	case !under(from, "demo"):
		return ""
	case from == "demo/herd" && to == "demo":
		return "demo/herd imports nothing of demo (cmd/demo puts them together)"
	case !underAny(to, demoImports):
		return "the demo packages import only zkview, lockops, peer, printable and demo packages"
	}
	return ""
}
