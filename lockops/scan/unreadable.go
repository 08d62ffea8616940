package scan

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
)

// Unreadable is the problem of a subtree at p that a scan left out
// because reading it failed with err ([Options.Skipped]).
func Unreadable(p string, err error) lockops.Problem {
	why := "vanished during the scan"
	switch {
	case errors.Is(err, zk.ErrNoAuth):
		why = "not readable with this session's credentials (NoAuth); locks below it were not checked"
	case !errors.Is(err, zk.ErrNoNode):
		why = err.Error()
	}
	return lockops.Problem{Kind: lockops.ProblemUnreadable, Node: p, Detail: why}
}

// PathError is the failure err of a scan of p in one line: a missing p
// says so plainly.
func PathError(p string, err error) error {
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("%s does not exist", p)
	}
	return err
}
