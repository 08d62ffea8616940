package redistree

import (
	"errors"
	"strings"
	"testing"
)

func TestRedisErrorWording(t *testing.T) {
	for in, want := range map[string]string{
		"WRONGTYPE Operation against a key holding the wrong kind of value": "press r to read it again",
		"NOAUTH Authentication required.":                                   "put user:password in --auth-file",
		"WRONGPASS invalid username-password pair or user is disabled.":     "refused the credentials",
	} {
		if got := Error(errors.New(in)).Error(); !strings.Contains(got, want) {
			t.Errorf("%q → %q, want %q in it", in, got, want)
		}
	}
	if Error(nil) != nil {
		t.Error("nil is no error")
	}
}
