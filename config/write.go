package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// currentContextLine matches the top-level current_context key.
var currentContextLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*current_context\s*=`) }) // compiled when first used, not at every start

// SetCurrentContext makes name the config file's current_context, keeping
// the rest of the file (comments included) as it is. name must be one of
// the file's contexts. The file is replaced atomically.
func SetCurrentContext(path, name string) error {
	fc, err := LoadFile(path, true)
	if err != nil {
		return err
	}
	if _, ok := fc.Contexts[name]; !ok {
		return fmt.Errorf("no context %q in %s (known: %s)", name, path, knownList(fc))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read config file: %w", err)
	}
	line := "current_context = " + strconv.Quote(name)
	lines := strings.Split(string(b), "\n")
	replaced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			break // a table: current_context is top-level only
		}
		if currentContextLine().MatchString(l) {
			lines[i], replaced = line, true
			break
		}
	}
	if !replaced {
		lines = append([]string{line}, lines...)
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.toml")
	if err != nil {
		return fmt.Errorf("write config file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(strings.Join(lines, "\n")); err != nil {
		tmp.Close()
		return fmt.Errorf("write config file: %w", err)
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write config file: %w", err)
	}
	if _, err := LoadFile(tmp.Name(), true); err != nil {
		return fmt.Errorf("config file would not load after the change (left unchanged): %w", err)
	}
	return os.Rename(tmp.Name(), path)
}
