// Package version is the version command (what was built, from the build
// info) and the hidden man command (the man pages, generated from the
// command tree).
package version

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/printable"
)

// Info is what `zkscope version` prints.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Time      string `json:"commit_time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go"`
	Platform  string `json:"platform"`
	// Server is who zkscope is on the servers --server or --context name
	// (nil when neither was given).
	Server *ServerInfo `json:"server,omitempty"`
}

// ServerInfo is the session zkscope opened to answer `version --server`:
// the member, and the identities the session holds as the server says
// (whoAmI, ZooKeeper 3.7+) or, on an older server, as configured.
type ServerInfo struct {
	Address    string   `json:"address"`
	SessionID  string   `json:"session_id"`
	Identities []string `json:"identities"`
	// Asked is false when the server could not say (before 3.7): the
	// identities are then the configured ones.
	Asked bool `json:"asked"`
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
	// Ask: --server or --context (or ZKSCOPE_SERVER, ZKSCOPE_CONTEXT)
	// named servers: connect and say who zkscope is there.
	Ask bool
}

// NewCmdVersion is `zkscope version`.
func NewCmdVersion(f *cmdutil.Factory) *cobra.Command {
	o := Options{Built: f.Version}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print zkscope's version, commit and Go version",
		Long: `Print zkscope's version, commit and Go version. With --server or --context (or
ZKSCOPE_SERVER, ZKSCOPE_CONTEXT) it also connects and says who zkscope is there: the
identities its session holds (the server's whoAmI, ZooKeeper 3.7+; else the configured ones).`,
		Example: `  zkscope version
  zkscope version -o json
  zkscope version --server zk1:2181 --sasl-user bob --sasl-password-file ~/.zk-sasl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl := cmd.Flags()
			o.Ask = fl.Changed("server") || fl.Changed("context") || os.Getenv("ZKSCOPE_SERVER") != "" || os.Getenv("ZKSCOPE_CONTEXT") != ""
			if o.Output != "" && o.Output != "text" && o.Output != "json" {
				// before connecting: a usage error needs no server
				return cmdutil.Usagef("--output %q: want text or json", o.Output)
			}
			v := Build(o.Built)
			if o.Ask {
				s, err := askServer(cmd.Context(), f)
				if err != nil {
					return err
				}
				v.Server = s
			}
			return runVersion(cmd.OutOrStdout(), o, v)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "output format: text or json")
	cmd.RegisterFlagCompletionFunc("output", cmdutil.Fixed("text", "json"))
	return cmd
}

// askServer connects to the target and asks who zkscope is there.
func askServer(ctx context.Context, f *cmdutil.Factory) (*ServerInfo, error) {
	c, err := f.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s := &ServerInfo{Address: c.Server(), SessionID: fmt.Sprintf("%#x", c.SessionID())}
	ask, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ids, err := c.WhoAmI(ask)
	if err == nil {
		s.Asked = true
		for _, id := range ids {
			s.Identities = append(s.Identities, printable.String(id.Scheme+":"+id.ID))
		}
		return s, nil
	}
	s.Identities = c.ConfiguredIdentities()
	return s, nil
}

// runVersion prints what was built, and who zkscope is on the servers.
func runVersion(w io.Writer, o Options, v Info) error {
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
	if s := v.Server; s != nil {
		how := "as the server says (whoAmI)"
		if !s.Asked {
			how = "as configured (the server does not answer whoAmI: ZooKeeper 3.7+ does)"
		}
		fmt.Fprintf(w, "server: %s, session %s\nidentities %s: %s\n", s.Address, s.SessionID, how, strings.Join(s.Identities, ", "))
	}
	return nil
}
