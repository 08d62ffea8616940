package cmdutil

import (
	"errors"
	"fmt"
	"os"

	"github.com/zkscope/zkscope/lockops/audit"
)

// ExitError carries a process exit status through cobra; its message was
// printed already.
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// UsageError is input zkscope refuses before it connects or does anything
// else: a bad path, argument or flag value, flags that exclude each other,
// an unknown command or flag. It exits 2, as a refusal does.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usage marks err (when not nil) as a usage error.
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return UsageError{err}
}

// Usagef is a usage error built like fmt.Errorf.
func Usagef(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

// IsUsage reports whether err is (or wraps) a usage error.
func IsUsage(err error) bool {
	var u UsageError
	return errors.As(err, &u)
}

// ReportAuditErrors prints every failure to write the audit log: a change
// that was made but not audited must not go unnoticed.
func ReportAuditErrors() {
	for {
		select {
		case err := <-audit.Errors():
			fmt.Fprintln(os.Stderr, "zkscope: WARNING: the audit log was not written:", err)
		default:
			return
		}
	}
}
