package lockops

import (
	"errors"
	"fmt"
)

// ExitRefused is the exit status of a command that zkscope refused to
// carry out (nothing was written): the intent was unclear or the action
// would break a lock's exclusion or destroy data. The one-line reason names
// the flag that decides.
const ExitRefused = 2

// Refusal is an operation zkscope declined to perform. Nothing was
// written; Reason is one line saying why and what to pass to go ahead.
type Refusal struct {
	Op     string // the audited operation ("take", "revoke", "force-delete")
	Path   string // the node or lock directory it concerned
	Reason string
	// Undecided, when set, says why zkscope cannot choose for the operator
	// (a screen asks for the choice instead); Reason then also names the
	// command-line flags that make it.
	Undecided string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("refused to %s %s: %s", r.Op, r.Path, r.Reason)
}

// Refusef builds a [*Refusal].
func Refusef(op, path, format string, args ...any) error {
	return &Refusal{Op: op, Path: path, Reason: fmt.Sprintf(format, args...)}
}

// IsRefusal reports whether err is (or wraps) a [*Refusal].
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}

// The operations zkscope performs on locks and nodes, as a [Refusal] and
// the audit log name them.
const (
	OpTake        = "take"
	OpRelease     = "release"
	OpRevoke      = "revoke"
	OpForceDelete = "force-delete"
	OpCreate      = "create"
	OpSet         = "set"
	OpDelete      = "delete"
	OpSetACL      = "set-acl"
)
