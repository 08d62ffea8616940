// Package cmdutil is what zkscope's commands share: the [Factory] every
// command is given (the connection flags, the target they resolve to,
// connecting), usage errors and exit statuses, -o json|yaml, the progress
// line of a long scan, terminal checks, completion helpers and the
// process tuning of one-shot reads. It imports no command package; no
// package of the module but the commands imports it.
package cmdutil

import (
	"io"
	"os"

	"github.com/zkscope/zkscope/config"
)

// Factory is what every command is given instead of package globals: the
// global flags (bound by the root command), the target they resolve to
// (resolved once, on first use, before the command runs), the build's
// version and the process tuning of one-shot reads.
type Factory struct {
	// Flags are the connection flags (--server, --context, --tls*, …).
	Flags config.Flags
	// Theme is --theme ("" or "auto": from the terminal background, else
	// the config file's theme).
	Theme string
	// Version is the version set at build time ("" when none).
	Version string
	// Getenv reads the environment (os.Getenv).
	Getenv func(string) string
	// Tune is the process tuning of a one-shot read ([TuneForBigRead]);
	// tests that run commands in-process turn it off.
	Tune func(out io.Writer)

	target *config.Target
}

// NewFactory is the factory of a zkscope process built as version.
func NewFactory(version string) *Factory {
	return &Factory{Version: version, Getenv: os.Getenv, Tune: TuneForBigRead}
}

// Target is the servers the flags, the environment and the config file
// name: resolved on the first call, the same afterwards.
func (f *Factory) Target() config.Target {
	if f.target == nil {
		t := config.Resolve(f.Flags, f.Getenv)
		f.target = &t
	}
	return *f.target
}

// ConfigFile reads the config file the flags select (a missing default
// file is an empty config) and says which file it is.
func (f *Factory) ConfigFile() (*config.File, string, error) {
	path, explicit := config.FilePath(f.Flags, f.Getenv)
	fc, err := config.LoadFile(path, explicit)
	return fc, path, err
}

// ContextName is the context in use: --context, else ZKSCOPE_CONTEXT,
// else fc's current_context.
func (f *Factory) ContextName(fc *config.File) string {
	return config.ContextName(f.Flags, fc, f.Getenv)
}

// UISettings is what the config file says about the UI itself (theme,
// the contexts `:ctx` offers), as opposed to the connection. A file that
// cannot be read gives none: resolving the target reports the same
// failure.
func (f *Factory) UISettings() *config.File {
	fc, _, err := f.ConfigFile()
	if err != nil {
		return &config.File{}
	}
	return fc
}

// ReadyHeapFor readies the heap of a one-shot read for a directory of n
// children (see [ReadyHeapForChildren]), unless Tune is off.
func (f *Factory) ReadyHeapFor(n int) {
	if f.Tune != nil {
		ReadyHeapForChildren(n)
	}
}

// TuneOneShot tunes the process for a one-shot read printing to out (see
// [TuneForBigRead]), unless Tune is off.
func (f *Factory) TuneOneShot(out io.Writer) {
	if f.Tune != nil {
		f.Tune(out)
	}
}
