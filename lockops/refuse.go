package lockops

import (
	"errors"
	"fmt"

	"github.com/zkscope/zkscope/zkview"
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

// Refuse records in the audit log that op on node was refused for reason
// (c may be nil; session is the node's owner, 0 when none) and returns the
// [*Refusal]: for refusals decided by a caller, such as the CLI when it
// cannot ask for a confirmation.
func Refuse(c *zkview.Client, op, node string, session int64, reason string) error {
	err := &Refusal{Op: op, Path: node, Reason: reason}
	Record(c, op, node, nil, session, err)
	return err
}

// RefuseReadOnly is, when c is read-only, the refusal of op on node
// before anything is read or asked: one line naming --read-only (it wraps
// [zkview.ErrReadOnly], exit [ExitRefused]), recorded in the audit log.
// It is nil when c may write.
func RefuseReadOnly(c *zkview.Client, op, node string) error {
	if !c.Config().ReadOnly {
		return nil
	}
	err := fmt.Errorf("%s %s: %w", op, node, zkview.ErrReadOnly)
	Record(c, op, node, nil, 0, err)
	return err
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
