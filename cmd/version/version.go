// Package version is the version command (what was built, from the build
// info) and the hidden man command (the man pages, generated from the
// command tree).
package version

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
)

// Info is what `zkscope version` prints.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Time      string `json:"commit_time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go"`
	Platform  string `json:"platform"`
}

// Build reads the module version, the commit and the Go version from the
// build info (`go install …@v1.2.3` records the version, a build in a git
// checkout the commit); built, the version set with -ldflags "-X
// main.version=…", overrides the version when not "".
func Build(built string) Info {
	v := Info{Version: "(devel)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
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
	if built != "" {
		v.Version = built
	}
	return v
}

// Options are the version command's.
type Options struct {
	Built  string // the version set at build time
	Output string // -o: text or json
}

// NewCmdVersion is `zkscope version`.
func NewCmdVersion(f *cmdutil.Factory) *cobra.Command {
	o := Options{Built: f.Version}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print zkscope's version, commit and Go version",
		Example: `  zkscope version
  zkscope version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runVersion(cmd.OutOrStdout(), o) },
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "output format: text or json")
	cmd.RegisterFlagCompletionFunc("output", cmdutil.Fixed("text", "json"))
	return cmd
}

// runVersion prints what was built.
func runVersion(w io.Writer, o Options) error {
	v := Build(o.Built)
	switch o.Output {
	case "json":
		return json.NewEncoder(w).Encode(v)
	case "", "text":
	default:
		return cmdutil.Usagef("--output %q: want text or json", o.Output)
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
}
