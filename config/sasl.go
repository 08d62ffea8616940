package config

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/zkscope/zkscope/zkview/sasl"
)

// ResolveSASL merges the context's sasl table and the SASL flags (flags
// win); nil when neither asks for SASL. The mechanism is the one named, or
// GSSAPI when only a principal or keytab is given, DIGEST-MD5 when only a
// user. The DIGEST-MD5 password comes from a file of mode 0600
// (--sasl-password-file, the context's password_file) or
// ZKSCOPE_SASL_PASSWORD, never from the command line.
func ResolveSASL(f Flags, ctx Context, getenv func(string) string) (*sasl.Config, error) {
	var s SASL
	if ctx.SASL != nil {
		s = *ctx.SASL
	}
	override := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	override(&s.Mechanism, f.SASLMechanism)
	override(&s.User, f.SASLUser)
	override(&s.PasswordFile, f.SASLPasswordFile)
	override(&s.Service, f.SASLService)
	override(&s.Principal, f.Principal)
	override(&s.Keytab, f.Keytab)
	if s == (SASL{}) {
		return nil, nil
	}
	mech := strings.ToUpper(s.Mechanism)
	switch {
	case mech != "":
	case s.Principal != "" || s.Keytab != "":
		mech = sasl.GSSAPI
	case s.User != "" || s.PasswordFile != "":
		mech = sasl.DigestMD5
	default:
		return nil, errors.New("--sasl-service alone does not say how to authenticate: add --sasl-mechanism DIGEST-MD5 or GSSAPI")
	}
	cfg := &sasl.Config{Mechanism: mech, User: s.User, Principal: s.Principal, Keytab: expandHome(s.Keytab, getenv)}
	cfg.Service, cfg.ServiceHost, _ = strings.Cut(s.Service, "/")
	switch mech {
	case sasl.DigestMD5:
		if s.User == "" {
			return nil, errors.New("SASL DIGEST-MD5 needs a user: give --sasl-user (or the context's sasl.user)")
		}
		pw, err := saslPassword(expandHome(s.PasswordFile, getenv), getenv)
		if err != nil {
			return nil, err
		}
		cfg.Password = pw
	case sasl.GSSAPI:
		if s.User != "" || s.PasswordFile != "" {
			return nil, errors.New("SASL GSSAPI takes --principal and --keytab (or kinit's cache), not --sasl-user or --sasl-password-file")
		}
	default:
		return nil, fmt.Errorf("unknown SASL mechanism %q: --sasl-mechanism takes DIGEST-MD5 or GSSAPI", s.Mechanism)
	}
	return cfg, nil
}

// saslPassword reads the DIGEST-MD5 password: the file (owner-only, its
// first line) or ZKSCOPE_SASL_PASSWORD.
func saslPassword(path string, getenv func(string) string) (string, error) {
	if path == "" {
		if pw := getenv("ZKSCOPE_SASL_PASSWORD"); pw != "" {
			return pw, nil
		}
		return "", errors.New("SASL DIGEST-MD5 needs a password: give --sasl-password-file FILE (mode 0600) or ZKSCOPE_SASL_PASSWORD, or the context's sasl.password_file")
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("SASL password file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("SASL password file %s is readable by group or others (mode %#o): run `chmod 600 %s`", path, st.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("SASL password file: %w", err)
	}
	pw, _, _ := strings.Cut(string(b), "\n")
	pw = strings.TrimRight(pw, "\r")
	if pw == "" {
		return "", fmt.Errorf("SASL password file %s is empty", path)
	}
	return pw, nil
}
