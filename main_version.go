package main

// The version command: what was built, from the build info.

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionInfo is what `zkscope version` prints.
type versionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Time      string `json:"commit_time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go"`
	Platform  string `json:"platform"`
}

// buildVersion reads the module version, the commit and the Go version
// from the build info (`go install …@v1.2.3` records the version, a build
// in a git checkout the commit); -ldflags "-X main.version=…" overrides
// the version.
func buildVersion() versionInfo {
	v := versionInfo{Version: "(devel)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		v.Version = version
	}
	return v
}

func newVersionCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print zkscope's version, commit and Go version",
		Example: `  zkscope version
  zkscope version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := buildVersion()
			w := cmd.OutOrStdout()
			switch output {
			case "json":
				enc := json.NewEncoder(w)
				return enc.Encode(v)
			case "", "text":
			default:
				return usagef("--output %q: want text or json", output)
			}
			fmt.Fprintf(w, "zkscope %s\n", v.Version)
			if v.Commit != "" {
				dirty := ""
				if v.Modified {
					dirty = " (modified)"
				}
				fmt.Fprintf(w, "commit: %s%s %s\n", v.Commit, dirty, v.Time)
			}
			fmt.Fprintf(w, "go: %s %s\n", v.GoVersion, v.Platform)
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: text or json")
	return cmd
}
