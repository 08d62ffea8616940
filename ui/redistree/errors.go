package redistree

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
)

// Redis failures worded for the status line.

// wordedErr is a Redis failure as one plain sentence with what to do next;
// errors.Is still finds the cause.
type wordedErr struct {
	text string
	err  error
}

func (e *wordedErr) Error() string { return e.text }
func (e *wordedErr) Unwrap() error { return e.err }

// Error words err for the status line (nil stays nil; an error
// already worded stays as it is).
func Error(err error) error {
	var re *wordedErr
	if err == nil || errors.As(err, &re) {
		return err
	}
	s := err.Error()
	var ne net.Error
	var oe *net.OpError
	switch {
	case strings.Contains(s, "NOAUTH"):
		return &wordedErr{"The Redis server wants a password (NOAUTH): put user:password in --auth-file, ZKSCOPE_AUTH or the context.", err}
	case strings.Contains(s, "WRONGPASS"), strings.Contains(s, "invalid password"), strings.Contains(s, "invalid username-password"):
		return &wordedErr{"The Redis server refused the credentials (WRONGPASS): check --auth-file, ZKSCOPE_AUTH or the context.", err}
	case strings.Contains(s, "WRONGTYPE"):
		return &wordedErr{"The key changed type while it was read (WRONGTYPE): press r to read it again.", err}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &wordedErr{"Redis did not answer in time: press r to try again, or check the server's load.", err}
	case errors.As(err, &oe):
		return &wordedErr{fmt.Sprintf("Redis at %s does not answer (%v): check --server and that redis-server runs there.", addrOf(oe), oe.Err), err}
	}
	return err
}

func addrOf(oe *net.OpError) string {
	if oe.Addr != nil {
		return oe.Addr.String()
	}
	return "the server"
}
