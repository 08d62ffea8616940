package zkview

import (
	"os"
	"time"
)

// Flags are the connection settings a user can give on the command line.
// Secrets never come from argv: AuthFile names a file, and ZKSCOPE_AUTH
// holds "scheme:user:password" in the environment.
type Flags struct {
	Server         string // --server (connect string, may end in /chroot)
	Context        string // --context
	ConfigFile     string // --config (default $XDG_CONFIG_HOME/zkscope/config.toml)
	AuthFile       string // --auth-file: a file holding "user:password" (digest)
	TLSCA          string // --tls-ca
	TLSCert        string // --tls-cert
	TLSKey         string // --tls-key
	TLSServerName  string // --tls-server-name
	TLS            bool   // --tls
	ReadOnly       bool   // --read-only
	SessionTimeout time.Duration
}

// ResolveConfig merges, in rising order of precedence: defaults, the config
// file's selected context, ZKSCOPE_* environment variables and flags.
// getenv is os.Getenv outside tests.
func ResolveConfig(f Flags, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg := Config{SessionTimeout: f.SessionTimeout, ReadOnly: f.ReadOnly}
	server := f.Server
	if server == "" {
		server = getenv("ZKSCOPE_SERVER")
	}
	if server == "" {
		server = DefaultServer
	}
	servers, chroot, err := ParseConnectString(server)
	if err != nil {
		return Config{}, err
	}
	cfg.Servers, cfg.Chroot = servers, chroot
	return cfg, nil
}
