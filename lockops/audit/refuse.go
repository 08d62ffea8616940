package audit

import (
	"fmt"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// Refuse records in the audit log that op on node was refused for reason
// (c may be nil; session is the node's owner, 0 when none) and returns the
// [*lockops.Refusal]: for refusals decided by a caller, such as the CLI when it
// cannot ask for a confirmation.
func Refuse(c *zkview.Client, op, node string, session int64, reason string) error {
	err := &lockops.Refusal{Op: op, Path: node, Reason: reason}
	Record(c, op, node, nil, session, err)
	return err
}

// RefuseReadOnly is, when c is read-only, the refusal of op on node
// before anything is read or asked: one line naming --read-only (it wraps
// [zkview.ErrReadOnly], exit [lockops.ExitRefused]), recorded in the audit log.
// It is nil when c may write.
func RefuseReadOnly(c *zkview.Client, op, node string) error {
	if !c.Config().ReadOnly {
		return nil
	}
	err := fmt.Errorf("%s %s: %w", op, node, zkview.ErrReadOnly)
	Record(c, op, node, nil, 0, err)
	return err
}
