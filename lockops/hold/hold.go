// Package hold is what a lock zkscope holds is, ZooKeeper's (take) and
// Redis's (redislock) alike: how long a take waits, its errors, the
// states a held lock goes through and the changes that tell them, the
// margin kept off its deadline, the data its node carries about its
// owner, and the readers of its changes and deadlines (subscribers.go).
//
// It holds no lock itself and talks to no server; it imports nothing of
// the taking packages, ui or cmd.
package hold

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops/audit"
)

// WaitPolicy says how long Take waits for the lock.
type WaitPolicy int

const (
	// WaitBlock waits until the lock is ours or ctx ends.
	WaitBlock WaitPolicy = iota
	// WaitTimeout waits at most TakeOptions.Timeout.
	WaitTimeout
	// WaitNone fails at once with ErrWouldBlock when someone else holds it.
	WaitNone
)

var (
	// ErrTimeout: the lock was not acquired within the timeout; our node was
	// deleted again (as Curator does).
	ErrTimeout = errors.New("timed out waiting for the lock")
	// ErrWouldBlock: the lock is held by someone else and the caller asked
	// not to wait; our node was deleted again.
	ErrWouldBlock = errors.New("the lock is held by someone else")
	// ErrLost: the lock (or our place in its queue) is gone: the session
	// expired or was replaced, or our node was deleted by someone else.
	ErrLost = errors.New("lock lost")
)

// OwnerData is the data zkscope writes into its lock nodes: who took the
// lock, readable in any tool ("alice@build7 zkscope pid 4242: deploy").
func OwnerData(note string) []byte {
	u, h := audit.WhoAmI()
	s := fmt.Sprintf("%s@%s zkscope pid %d", u, h, os.Getpid())
	if note = strings.TrimSpace(note); note != "" {
		s += ": " + note
	}
	return []byte(s)
}

// State is what zkscope knows about a lock it took.
type State int

const (
	// StateHeld: our node exists and our session is connected.
	StateHeld State = iota
	// StateSuspended: disconnected; the session (and the lock) may still be
	// alive, or may have expired. Act as if it could be lost.
	StateSuspended
	// StateLost: the session expired or was replaced, our node was deleted by
	// someone else, or we were disconnected for longer than the session
	// timeout. Never "held" again.
	StateLost
	// StateReleased: we let go with take.Held.Release.
	StateReleased
)

// String is the state's lowercase name.
func (s State) String() string {
	switch s {
	case StateHeld:
		return "held"
	case StateSuspended:
		return "suspended"
	case StateLost:
		return "lost"
	case StateReleased:
		return "released"
	}
	return "unknown"
}

// OpDeleteLost is the audit operation of our own node deleted after the
// lock had been declared lost (the session came back; see take.Held).
const OpDeleteLost = "delete-lost"

// Change is one change of a held lock's state.
type Change struct {
	State State
	// Reason explains StateSuspended and StateLost in one sentence.
	Reason string
	// Deadline (StateHeld and StateSuspended) is the moment the lock must be
	// treated as lost unless the servers answer again: the last contact
	// plus the session timeout, less a margin (see take.Held.Deadline).
	Deadline time.Time
	// RevokeRequested is set when someone wrote Curator's "__REVOKE__" to
	// our node (a revocation request; the state is unchanged).
	RevokeRequested bool
	// NodeDeleted (StateLost, last change) says that the session came back
	// after zkscope had declared the lock lost, and zkscope deleted our node
	// so that nothing holds a lock nobody knows it holds. Reason says so.
	NodeDeleted bool
	// WatchingForReturn (StateLost) says the lock was declared lost while
	// its session may still be alive: should the session come back, our
	// node is deleted at once (and a NodeDeleted change follows).
	WatchingForReturn bool
	Time              time.Time
}

// LossMargin is taken off the session timeout for the deadline: it covers
// timer lateness and the delivery of a kill.
func LossMargin(timeout time.Duration) time.Duration {
	return min(timeout/10, 500*time.Millisecond)
}

// RoundDuration rounds d for messages (10 ms).
func RoundDuration(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
