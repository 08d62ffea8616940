package ui

import (
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/tree"
	"github.com/zkscope/zkscope/zkview"
)

// All asynchronous results reach Update as one of these messages. Every
// reply to a fetch carries the request id it was issued with; Update drops
// a reply whose id is no longer the newest for its key.

// connMsg is one connection state change (from the Subscribe stream).
type connMsg struct{ ev zkview.ConnEvent }

// whoAmIMsg is the server's whoAmI for session: its identities but ip's.
type whoAmIMsg struct {
	session int64
	ids     []string
	err     error
}

// treeMsg is a coalesced batch of watch changes, copied out of the cache.
type treeMsg struct {
	dirs   []tree.Listing
	nodes  []common.Node
	closed []string // directories no longer expanded (deleted)
	reset  bool
}

// childrenMsg answers an expand.
type childrenMsg struct {
	id  uint64
	dir tree.Listing
	err error
}

// pathMsg answers `:cd`: the chain of directories expanded on the way.
type pathMsg struct {
	id     uint64
	target string
	dirs   []tree.Listing
	err    error
}

// statsMsg answers a stat load of the visible rows.
type statsMsg struct {
	id    uint64
	paths []string // asked for
	nodes []common.Node
	err   error
}

// selectMsg answers the read of the node under the cursor, with its ACL.
type selectMsg struct {
	id   uint64
	node common.Node
	acl  []zk.ACL
	err  error
}

// lockMsg answers the read and decode of a lock directory.
type lockMsg struct {
	id    uint64
	path  string
	queue lockops.Queue
	isDir bool // false: not a lock directory after all
	err   error
}

// lockProbeMsg answers a probe of visible directories for lock recipes.
type lockProbeMsg struct {
	found map[string]tree.LockTag
	none  []string
}

// sessionsViewMsg carries every session the members report, joined with
// the locks below root, for the session view.
type sessionsViewMsg struct {
	id     uint64
	root   string
	ss     []diagnose.Session
	ens    *zkview.Ensemble
	queues []lockops.Queue
	at     time.Time
	err    error // the scan failed or stopped early (the sessions still come)
}

// ensembleViewMsg carries a detailed snapshot for the ensemble view.
type ensembleViewMsg struct {
	id  uint64
	ens *zkview.Ensemble
}

// ensembleMsg carries what the members said about themselves.
type ensembleMsg struct {
	id  uint64
	ens *zkview.Ensemble
}

// searchMsg answers a search below a node.
type searchMsg struct {
	id        uint64
	root      string
	query     string
	hits      []searchHit
	scanned   int
	truncated bool
	cancelled bool // stopped by the user (truncated too)
	skipped   skippedTrees
	err       error
}

// skippedTrees counts the subtrees a walk left out: not readable with the
// session's credentials (NoAuth), or deleted while it went on.
type skippedTrees struct {
	n     int
	first string // the first in path order
	err   error  // first's
}

// note records p as skipped for err.
func (s *skippedTrees) note(p string, err error) {
	s.n++
	if s.first == "" || p < s.first {
		s.first, s.err = p, err
	}
}

// searchHit is one node whose name or data matched.
type searchHit struct {
	Path   string
	InData bool
	Note   string // shown after the path (a lock's recipe and length)
}

// mutationMsg reports a create, edit or delete.
type mutationMsg struct {
	op   string // "create", "edit", "delete", "delete tree"
	path string
	err  error
	// For a change refused on its version: the version it was made
	// against and, when it could be read, the node's version now.
	expected, now int32
	nowKnown      bool
	// For a create: how the node was made (see common.Made).
	flags int32
	ttl   time.Duration
}

// editReadyMsg: the temp file for `e` is written; Update starts the
// editor (edit.go).
type editReadyMsg struct {
	path    string
	file    string
	version int32
	orig    []byte // the data as read
	hex     bool   // the file is a hex dump of orig
}

// editorMsg reports the end of an $EDITOR session on a temp file.
type editorMsg struct {
	path    string
	file    string
	version int32
	orig    []byte
	hex     bool
	err     error
}

// editedMsg carries what the edited file means for the node: the data to
// write if changed, or why it cannot be written.
type editedMsg struct {
	path    string
	data    []byte
	version int32
	changed bool
	err     error
}

// contextMsg answers `:ctx name`.
type contextMsg struct {
	name   string
	client *zkview.Client
	err    error
}

// dialProblemMsg is a failed attempt of the connect at start (it goes on).
type dialProblemMsg struct {
	problem  string
	problems <-chan string
	done     <-chan struct{}
}

// dialedMsg answers the connect at start ([Options.Dial]).
type dialedMsg struct {
	id     uint64
	client *zkview.Client
	err    error
}

// completionMsg answers the listing `:cd` completion asked for.
type completionMsg struct {
	id    uint64
	dir   string
	names []string // sorted
	err   error
}
