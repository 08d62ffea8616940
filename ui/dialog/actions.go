package dialog

import (
	"time"

	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/take"
)

// The actions of the node forms (create, edit, delete, delete tree); the
// root model acts on them.
type (
	// Cancelled: a node form was closed without a change.
	Cancelled struct{}
	// Quit: ctrl+c in a node form (the form stays open underneath, in
	// case quitting asks first).
	Quit struct{}
	// Delete deletes Path if it is still at Version.
	Delete struct {
		Path    string
		Version int32
	}
	// DeleteTree deletes Path and everything below it if Path is still at
	// Version.
	DeleteTree struct {
		Path    string
		Version int32
	}
	// Edit writes Data to Path if it is still at Version.
	Edit struct {
		Path    string
		Data    []byte
		Version int32
	}
	// Create makes Path with Data, as Flags says (TTL: for the TTL types).
	Create struct {
		Path  string
		Data  []byte
		Flags int32
		TTL   time.Duration
	}
)

// The actions of the lock dialogs; the lock pane acts on them.
type (
	// LockCancelled: a lock dialog was closed without a change; Note says
	// so in the pane.
	LockCancelled struct{ Note string }
	// Take takes the lock at Path with Opts; Why is the plan's reason for
	// its choice ("" when the operator chose).
	Take struct {
		Path string
		Opts take.Options
		Why  string
	}
	// Rejoin takes Path again with the options of the wait that was lost.
	Rejoin struct {
		Path string
		Opts take.Options
	}
	// RejoinDeclined: the operator chose not to queue for Path again.
	RejoinDeclined struct{ Path string }
	// ReleaseAndQuit releases our lock, then quits.
	ReleaseAndQuit struct{}
	// StayHolding: the operator chose not to quit while holding.
	StayHolding struct{}
	// Revoke asks the holder Node (labelled Label) to let go.
	Revoke struct{ Node, Label string }
	// Evict force-deletes Preview's node if it is still the one shown.
	Evict struct {
		Preview *evict.Preview
		Label   string
		// ForceLeader: the operator typed the leader confirmation of a
		// system's leader node (Kafka, HDFS, HBase, Solr): deleting it
		// starts a new election ([evict.Options.ForceLeader]).
		ForceLeader bool
	}
	// EvictUnreadable: the node to force-delete could not be read.
	EvictUnreadable struct {
		Node string
		Err  error
	}
)

// Replies the lock dialogs wait for (built by the lock pane's commands).
type (
	// TakePlanMsg is the take dialog's plan for its choices (request ID).
	TakePlanMsg struct {
		ID   uint64
		Plan take.Plan
		Err  error
	}
	// EvictPreviewMsg is what force-deleting Node would do (request ID).
	EvictPreviewMsg struct {
		ID      uint64
		Node    string
		Preview *evict.Preview
		Err     error
	}
)
