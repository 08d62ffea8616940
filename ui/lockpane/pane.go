// Package lockpane is the lock pane: the decoded queue of the lock
// directory under the cursor (holders, waiters, their chains of waits and
// the lock's problems as badges), kept live by its own watch, and the lock
// actions (take, release, revoke, force-delete) with the lock we hold.
//
// Its dialogs are ui/dialog types opened on the overlay it shares with the
// root model; their actions come back through [Model.HandleAction]. Its
// commands (action_cmds.go, load.go) do the I/O through lockops and zkview. It
// imports ui/common, ui/dialog, lockops, zkview and themes.
package lockpane

import (
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/zkview"
)

// Model shows the decoded queue of the lock directory under the cursor:
// holders then waiters in order, each with its mode, owner (session,
// client, data) and how long it has waited, or held where the pane saw
// it begin (else its node's age), the node each waiter
// watches drawn as a chain down to a holder, the servers' confirmation of
// those watches (✓ seen, ✗ missing, ? unknown) and the lock's problems as
// badges. Nodes that just arrived or just left stay highlighted for a few
// seconds so a person watching can follow the queue move.
//
// While shown it keeps its own children watch on the directory and
// re-reads the queue (coalesced: one read in flight, one more if the
// directory changed meanwhile). It also owns the lock actions (take,
// release, revoke, force-delete; see actions.go), whose state outlives
// the directory shown: a lock we hold stays tracked wherever the cursor is.
type Model struct {
	st    *themes.Styles
	paint *common.Painter // draws with st, fast
	keys  common.LockKeyMap
	w, h  int

	clock func() time.Time
	now   time.Time

	// What is shown.
	path     string // the lock directory
	visible  bool
	hiddenAt time.Time // when the pane was last hidden
	queue    lockops.Queue
	have     bool
	entries  []lockEntry
	heights  []int // lines per entry (prefix of the window computation)
	// labelAt is each participant's label, by index (label).
	labelAt []string
	// spareLabels is the labelAt before last, reused by the next
	// queue (a churning lock's reads allocate no new maps).
	spareLabels []string
	labelNames  labelNames
	chains      map[string]chainEnd
	// problemAt is the first problem in queue.Problems of each node
	// drawn (-1: none), found by each View (findProblems).
	problemAt map[string]int
	// rows are the entries' pieces drawn lately, rowKey the key being
	// made (rows.go).
	rows   common.Pieces
	rowKey []byte
	// judged is what judgeWatches found of the queue shown (judge.go).
	judged judged
	// spareProblems are the problems of the queue shown before, for a
	// later diagnosis to write into (follow.go).
	spareProblems []lockops.Problem
	shown         uint64 // queues shown so far (Shown)
	// children is the directory's child count in the read of ours that
	// the queue shown comes from (counted: it does).
	children int
	counted  bool

	// Live reading of path.
	client   *zkview.Client
	loader   Loader // reads a lock that is no znode (a Redis key; redis.go)
	dbNote   string // a database server's lock (db.go): what action keys say
	redis    redisActions
	readOnly bool
	loadID   uint64
	loading  bool
	dirty    bool
	live     bool          // our watch is armed: root re-reads are ignored
	stop     chan struct{} // closed to end the current watch listener
	loadErr  error
	loadedAt time.Time // when the last read of ours finished
	// dirCache is what the last read knew of path's children (the next
	// read reads only new ones).
	dirCache *scan.DirCache
	// loadStarted is when the last read started; holding says a change
	// is held back until loadEvery after it.
	loadStarted time.Time
	holding     bool
	// fol is the persistent watch on path, where the server has them
	// (follow.go).
	fol followState
	// verifiedAt is when the servers were last asked about the shown lock
	// (verifying: the question is out); ens is what they said, at ensAt,
	// applied to every read until the next answer.
	verifiedAt time.Time
	verifying  bool
	ens        *zkview.Ensemble
	ensAt      time.Time
	// samples are the servers' last answers, oldest first: a wait two of
	// them miss is missing (judgeWatches).
	samples []*zkview.Ensemble
	// findings are the problems that answer found (checks.go), carried
	// to the reads until the next; pings follows the sessions answering
	// only pings across answers.
	findings *serverFindings
	pings    diagnose.PingWatch
	// sentences are the shown lock's problems' sentences, remembered
	// across its reads.
	sentences *lockops.Sentences
	// wrapped is the footer's last problem wrapped (problemWrap).
	wrapped struct {
		kind   lockops.ProblemKind
		detail string
		w      int
		lines  []string
	}
	// noted is the footnote made of ens (view.go), made once per answer.
	noted struct {
		ens  *zkview.Ensemble
		text string
	}

	// What was seen per node, for highlights and ages.
	memo   map[string]*nodeMemo
	memoAt []*nodeMemo // the memo of each participant of queue, by index
	// spareMemoAt is the memoAt before last, reused by the next queue.
	spareMemoAt []*nodeMemo
	// cum counts the nodes that left the head of the queues shown in
	// shifts (noteShifted): a memo's index is moved up by what it grew.
	cum    int64
	ghosts []ghost
	// ghostsUnordered: ghosts are not in the order they left (the clock
	// went back): each is looked at (dropGhosts, newestGhosts).
	ghostsUnordered bool
	shownGhosts     []ghost // the ghosts drawn, copied (newestGhosts)
	badges          problemKinds
	first           bool // the next queue is the first of this directory

	// The participant cursor (for revoke and force-delete).
	cursorNode string
	cursor     int
	// wantNode is a node to select once a queue holding it is shown
	// (SelectNode).
	wantNode string
	offset   int

	act lockActions
	// hist is the shown lock's past states and the timeline (timeline.go).
	hist timeline
	// dialogs is the overlay shared with the root model; dialogID names
	// the lock dialog the pane opened last.
	dialogs  *dialog.Overlay
	dialogID string
	spinner  spinner.Model
	note     common.Status
}

// Highlight durations.
const (
	freshFor    = 4 * time.Second // newly arrived or newly holding
	releasedFor = 4 * time.Second // gone nodes stay as a struck-through row
	// reverifyEvery re-reads the shown lock with the servers' view even
	// when its children did not change.
	reverifyEvery = 3 * time.Second
)

// nodeMemo is what the pane remembers of one node of the shown directory.
type nodeMemo struct {
	firstSeen time.Time // when it appeared (zero: present at first read)
	// holdingSince is when a read first showed it holding: it turned
	// holding, or appeared holding after the first read; zero when
	// unknown (holding at the first read: its node's age is not how long
	// it has held).
	holdingSince time.Time
	holding      bool
	freshUntil   time.Time
	watches      string
	watchSince   time.Time // the read that first showed it waiting on watches
	// at is its index in the queue numbered shown (Model.shown) that
	// last noted it, when Model.cum was cum (memoIndex).
	at    int
	cum   int64
	shown uint64
}

// ghost is a node that left the queue, drawn struck-through for a while.
type ghost struct {
	p     lockops.Participant
	label string
	index int // where it stood
	until time.Time
	gone  time.Time
}

// lockEntry is one drawn participant, ghost, or the line that folds the
// older ghosts (fold > 0: that many).
type lockEntry struct {
	p     *lockops.Participant // into the queue shown (or the ghost)
	label string
	ghost *ghost
	fold  int
}

// participant says whether e is a participant (not a ghost or the fold).
func (e lockEntry) participant() bool { return e.ghost == nil && e.fold == 0 }

// maxGhostRows is how many released or departed nodes are drawn as rows;
// older ones are folded into one line ("… 97 more released in the last
// 4s"), so under heavy churn the holder and the first waiters stay in
// view.
const maxGhostRows = 3

// New builds an empty pane drawing with st (a pointer the root
// model updates in place when the theme changes).
func New(st *themes.Styles, dialogs *dialog.Overlay) *Model {
	p := &Model{st: st, paint: common.NewPainter(st), dialogs: dialogs, keys: common.DefaultLockKeyMap(), clock: time.Now, memo: map[string]*nodeMemo{}, hist: timeline{step: -1}}
	p.now = p.clock()
	p.spinner = spinner.New(spinner.WithSpinner(spinner.Dot))
	return p
}

// Styles are the styles the pane draws with (the root model's, updated in
// place on a theme change).
func (p *Model) Styles() *themes.Styles { return p.st }

// SetClient gives the pane the connection its reads and lock actions use;
// readOnly refuses every lock action with a message.
func (p *Model) SetClient(c *zkview.Client, readOnly bool) {
	if c != p.client {
		p.stopWatch()
		p.stopFollow()
		p.live = false
	}
	p.client, p.readOnly = c, readOnly
}

// SetSize sets the pane's inner size in cells.
func (p *Model) SetSize(w, h int) {
	p.w, p.h = max(w, 10), max(h, 3)
	p.clampCursor()
}

// SetQueue replaces the queue shown with a fresh decode of the directory
// (read by the root model). While the pane's own watch on that directory
// is armed, its reads are newer and verified: the root's are ignored.
func (p *Model) SetQueue(q lockops.Queue) {
	if p.live && q.Path == p.path && p.have {
		return
	}
	p.SetQueueAt(q, p.clock())
	p.counted = false
}

// Children is the shown directory's child count from the same read of the
// pane's as [Model.Queue]; ok is false when the queue shown came from
// elsewhere or no read of the pane's succeeded yet.
func (p *Model) Children() (n int, ok bool) {
	return p.children, p.counted && p.have
}

// Reads reports whether the pane reads the lock at path itself (shown,
// and read at least once): the root need not read it too, and the tree's
// tag for it comes from [Model.Queue].
func (p *Model) Reads(path string) bool {
	return p.visible && p.canRead() && p.path == path && p.have
}

// Queue is the queue shown.
func (p *Model) Queue() lockops.Queue { return p.queue }

// Shown counts the queues the pane has shown: a caller comparing it
// before and after a message knows whether the queue on screen changed.
func (p *Model) Shown() uint64 { return p.shown }

// Churning reports whether the shown lock is changing now: the pane is on
// screen and started a read of it within the last churnWindow.
func (p *Model) Churning() bool {
	return p.visible && !p.loadStarted.IsZero() && p.clock().Sub(p.loadStarted) < churnWindow
}

// churnWindow is how long after its last read the shown lock counts as
// churning.
const churnWindow = time.Second

// Update handles the pane's keys (while the detail area has focus), its
// own messages (reads, watch events, lock actions) and the root's ticks.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if cmd, ok := p.timelineKey(msg); ok {
			return cmd
		}
		if cmd, ok := p.ActionKey(msg, p.path, p.have); ok {
			return cmd
		}
		if key.Matches(msg, p.keys.Confirm) && p.have {
			return p.showProblems() // ⏎ on a node: its problems in full
		}
		p.navigate(msg)
		return nil
	case common.TickMsg:
		p.now = msg.At
		if p.note.Expired(p.now) {
			p.note = common.Status{}
		}
		if p.expire() {
			p.rebuild()
		}
		// Ask the servers again now and then: a waiter's watch appears in
		// their lists a moment after it moved, and data changes (a
		// revocation request) fire no children watch.
		if p.visible && p.Following() && p.fol.lastID != 0 && p.verifyDue() {
			return p.verifyNow()
		}
		if p.visible && !p.loading && p.now.Sub(p.verifiedAt) >= reverifyEvery {
			return p.load()
		}
		return nil
	case lockLoadedMsg:
		return p.onLoaded(msg)
	case lockFollowMsg:
		return p.onFollowStarted(msg)

	case redisPaneMsg:
		return p.updateRedis(msg) // a Redis lock's reads and actions (redis.go)
	case lockVerifiedMsg:
		return p.onVerified(msg)
	case lockDirChangedMsg:
		return p.onDirChanged(msg)
	case timelineLoadedMsg:
		return p.onTimelineLoaded(msg)
	case spinner.TickMsg:
		if !p.act.waiting() {
			return nil
		}
		var cmd tea.Cmd
		p.spinner, cmd = p.spinner.Update(msg)
		return cmd
	}
	return p.updateActions(msg)
}

// expire drops highlights and ghosts whose time is up; it reports whether
// the layout changed.
func (p *Model) expire() bool {
	for _, g := range p.ghosts {
		if !p.now.Before(g.until) {
			return true
		}
	}
	return false
}
