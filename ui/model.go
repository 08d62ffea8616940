// Package ui is zkscope's Bubble Tea program: the root [Model], the only
// tea.Model, which routes every message to its components and does the
// I/O they ask for through commands.
//
// The components are packages of their own: ui/tree (the tree pane),
// ui/detail (the node under the cursor), ui/lockpane (the lock queue and
// the lock actions), ui/dialog (every dialog, on one overlay stack),
// ui/ensemble and ui/sessions (the views that replace the tree) and
// ui/common (what they share). Every ZooKeeper read goes through zkview
// (the lazy tree cache) and every change through lockops (audited
// mutations), always from a command, never from Update; on Redis servers
// (redis*.go) the tree reads the keyspace through ui/redistree, and the
// detail and the lock pane read through redisview. It must not be imported by zkview or lockops.
// ARCHITECTURE.md maps features to files.
package ui

import (
	"context"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dbtree"
	"github.com/zkscope/zkscope/ui/detail"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/ui/ensemble"
	"github.com/zkscope/zkscope/ui/lockpane"
	"github.com/zkscope/zkscope/ui/sessions"
	"github.com/zkscope/zkscope/ui/tree"
	"github.com/zkscope/zkscope/zkview"
	"github.com/zkscope/zkscope/zkview/treecache"
)

// Options configure the TUI.
type Options struct {
	// Client is the open connection (nil only in tests that build the
	// model's state by hand, or when Dial opens it).
	Client *zkview.Client
	// Dial, when Client is nil, opens the connection in the background:
	// the UI shows at once, saying whom it connects to (Servers) and why
	// it is slow (report gets each failed attempt), and starts when Dial
	// returns. The UI closes the client it dialed.
	Dial    func(ctx context.Context, report func(problem string)) (*zkview.Client, error)
	Servers []string
	// Context is the config context's name, shown in the header.
	Context string
	// Theme is "auto" (or ""), "dark", "light", "high-contrast" or "none".
	Theme string
	// NoColor is NO_COLOR: render without colours whatever the theme.
	NoColor bool
	// ReadOnly refuses every change (also implied by the client's config).
	ReadOnly bool
	// Redis, when set, opens the TUI on Redis servers (redis.go).
	Redis *RedisOptions
	DB    *DBOptions // a database server (db.go)
	// Editor is the command for `e` (default $VISUAL, $EDITOR, vi).
	Editor string
	// Start is the path the cursor starts on (default "/").
	Start string
	// Contexts lists the config's context names (for `:ctx`), and Connect
	// opens one of them.
	Contexts []string
	Connect  func(ctx context.Context, name string) (*zkview.Client, error)
	// Txnlog is a transaction log (a server's data directory) the lock
	// pane's timeline replays past states from ("": its live ring).
	Txnlog string
	// Notice is a sentence the status line shows at start, until a key
	// is pressed (the demo says when zkscope stands in for a library).
	Notice string
}

// treeSource is what the UI needs of the lazy tree cache; *treecache.Tree
// implements it.
type treeSource interface {
	Events() <-chan treecache.Event
	Expand(ctx context.Context, p string) error
	Collapse(p string)
	Children(p string) ([]string, bool)
	DirStat(p string) (zk.Stat, bool)
	Node(p string) (treecache.Node, bool)
	LoadStats(ctx context.Context, paths []string) error
	Select(ctx context.Context, p string) (treecache.Node, error)
	Refresh()
	Close()
}

var _ treeSource = (*treecache.Tree)(nil)

// focusArea is the pane receiving keys.
type focusArea int

const (
	focusTree focusArea = iota
	focusDetail
)

// mode is the overlay taking keys, if any.
type mode int

const (
	modeNormal  mode = iota
	modeFilter       // typing a `/` filter
	modeCommand      // typing a `:` command
	modeSearch       // typing a search query
	modeResults      // browsing search results
	modeDialog       // a node form (create, edit, delete) is open
	modeHelp         // the `?` screen
)

// bodyView is what fills the body: the tree with its panes, or a view of
// the ensemble.
type bodyView int

const (
	screenTree     bodyView = iota
	screenEnsemble          // `:ensemble` (ui/ensemble)
	screenSessions          // `:sessions` (ui/sessions)
)

// Minimum terminal size; below it only a plain message is drawn.
const (
	minWidth  = 60
	minHeight = 15
)

// Model is the root and only tea.Model of the TUI.
type Model struct {
	opts   Options
	client *zkview.Client
	cache  treeSource // the lazy tree cache (zkview)
	mut    audit.Mutations
	conn   <-chan zkview.ConnEvent
	unsub  func()
	now    func() time.Time

	st       *themes.Styles
	darkBG   bool
	readOnly bool
	// whoAmI is what the server said the SASL session holds ("sasl:bob"),
	// for the header; whoAmIOf the session it was asked on.
	whoAmI   []string
	whoAmIOf int64
	keys     common.KeyMap
	help     help.Model

	width, height int
	focus         focusArea
	mode          mode

	state zkview.ConnEvent // latest connection state
	ens   *zkview.Ensemble // members' roles and connections (nil until asked)

	tree      tree.Model      // the tree pane (ui/tree)
	statsWant map[string]bool // stat loads in flight

	screen   bodyView       // what the body shows
	ensView  ensemble.Model // `:ensemble` (ui/ensemble)
	sessView sessions.Model // `:sessions` (ui/sessions)
	// sessPings follows the session view's reads, to tell sessions that
	// answered only pings since when (diagnose.PingWatch).
	sessPings diagnose.PingWatch
	sessRoot  string // the path whose locks :sessions joins
	sessFocus int64  // a session to put the cursor on once the view has read

	detail detail.Model // the node under the cursor (ui/detail)
	// lockProbed: directories already asked whether they are locks, with
	// the pzxid they had (a change of children asks again).
	lockProbed map[string]int64
	lock       *lockpane.Model
	// countedLock is the lock directory whose tree row counts children
	// from the pane's read (syncLockTag); "" none.
	countedLock string
	// frames caches the drawing between frames while the program runs
	// (nil: every View draws; see frames.go).
	frames     *frameCache
	fitted     *fittedHelp // the footer's help line drawn last (view.go)
	input      textinput.Model
	dialogs    *dialog.Overlay // every open dialog, the front one taking the keys (ui/dialog)
	search     searchState
	lastFind   string             // the last `f` query (↑ in the prompt brings it back)
	compl      completion         // `:cd` completion's listing and candidates (complete.go)
	busy       busyState          // the header's spinner (busy.go)
	deleting   *deleteRun         // a recursive delete in progress (mutate.go)
	helpScroll int                // first line of the `?` screen shown
	made       *common.Made       // containers and TTL nodes zkscope created
	cdCancel   context.CancelFunc // ends the `:cd` walk in flight
	status     common.Status

	startCmd tea.Cmd // the first read (the start path)
	ticks    int     // ticks seen

	startIntrospect tea.Cmd // the first ask of the members

	dial dialState // the connection at start, while Dial runs (connect.go)

	seq  uint64            // request ids
	reqs map[string]uint64 // newest request id per key

	redis *redisState  // the Redis mode (redis.go); nil on ZooKeeper
	db    *dbtree.Tree // the database mode (db.go); nil otherwise
}

// New builds the root model. It subscribes to the client's connection
// state and starts a tree cache; nothing is read until Init's commands run.
func New(opts Options) Model {
	if opts.Start == "" {
		opts.Start = "/"
	}
	m := Model{
		opts:       opts,
		now:        time.Now,
		darkBG:     true,
		keys:       common.DefaultKeyMap(),
		help:       help.New(),
		statsWant:  map[string]bool{},
		lockProbed: map[string]int64{},
		reqs:       map[string]uint64{},
		made:       &common.Made{},
		dialogs:    &dialog.Overlay{},
		fitted:     &fittedHelp{},
		width:      80,
		height:     24,
	}
	m.readOnly = opts.ReadOnly
	if opts.Client != nil {
		m.attach(opts.Client, opts.Context)
	} else if opts.Redis != nil {
		m.attachRedis(*opts.Redis)
	} else if opts.DB != nil {
		m.attachDB(*opts.DB)
	}
	m.keys.SetContext(false, false, !m.readOnly, !m.readOnly, m.db != nil)
	m.applyTheme()
	m.input = textinput.New()
	m.lock = lockpane.New(m.st, m.dialogs)
	m.lock.SetTxnlog(opts.Txnlog)
	m.busy = newBusy()
	if m.client != nil {
		m.lock.SetClient(m.client, m.readOnly)
	}
	m.detail = detail.New(m.st, m.made)
	if m.client != nil {
		m.detail.SetIdentity(identityOf(m.client.Config()))
	}
	m.startRedis()
	m.startDB()
	m.tree = tree.New(m.st, m.made)
	m.ensView = ensemble.New(m.st)
	m.sessView = sessions.New(m.st)
	m.layout()
	if opts.Notice != "" {
		m.setStatus(common.LevelWarn, opts.Notice)
	}
	if m.cache != nil {
		m.startCmd = m.cd(opts.Start)
		m.startIntrospect = introspect(m.client, m.nextID("ensemble"), false)
	} else if opts.Dial != nil {
		m.startCmd = m.startDial()
	}
	return m
}

// attach makes c the model's connection (at start and on `:ctx`).
func (m *Model) attach(c *zkview.Client, context string) {
	m.client = c
	m.opts.Context = context
	m.mut = audit.Mutations{Client: c}
	m.cache = treecache.New(c)
	m.conn, m.unsub = c.Subscribe()
	m.readOnly = m.opts.ReadOnly || c.Config().ReadOnly
	m.state = c.State()
	m.detail.SetIdentity(identityOf(c.Config()))
}

// identityOf is who a connection authenticates as, for a node it may not
// read ("digest user alice"; "" without credentials). The password is
// not shown.
func identityOf(cfg zkview.Config) string {
	var who []string
	for _, a := range cfg.Auth {
		user, _, _ := strings.Cut(string(a.Secret), ":")
		who = append(who, a.Scheme+" user "+user)
	}
	return strings.Join(who, ", ")
}

// Close stops the tree cache and the state subscription. Run calls it.
func (m *Model) Close() {
	m.stopLocksFollow()
	if m.lock != nil {
		m.lock.Close()
	}
	if m.cache != nil {
		m.cache.Close()
	}
	if m.unsub != nil {
		m.unsub()
	}
	if m.dial.cancel != nil {
		m.dial.cancel()
	}
}

// applyTheme (re)builds the styles; called at start and when the
// terminal reports its background.
func (m *Model) applyTheme() {
	p, err := themes.Pick(m.opts.Theme, m.darkBG, m.opts.NoColor)
	if err != nil {
		p, _ = themes.Pick(themes.Auto, m.darkBG, m.opts.NoColor)
	}
	s := themes.New(p)
	if m.st == nil {
		m.st = &s
	} else {
		*m.st = s // the lock pane holds the same pointer
	}
	m.help.Styles = help.Styles{
		Ellipsis:       s.HelpSep,
		ShortKey:       s.HelpKey,
		ShortDesc:      s.HelpDesc,
		ShortSeparator: s.HelpSep,
		FullKey:        s.HelpKey,
		FullDesc:       s.HelpDesc,
		FullSeparator:  s.HelpSep,
	}
}

// Init implements [tea.Model].
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, tick(), m.startCmd}
	if m.client != nil {
		cmds = append(cmds, listenConn(m.conn), listenTree(m.cache), m.startIntrospect)
	}
	cmds = append(cmds, m.redisInit())
	return tea.Batch(cmds...)
}

// frameRate is how many frames a second the screen is drawn at most:
// changes between two frames (a busy lock, a burst of watch events) are
// drawn once. A frame of a big queue or tree costs a few milliseconds, so
// the default 60 would cost a busy lock's pane a fifth of a core.
const frameRate = 20

// Run opens the TUI on the terminal and returns when the user quits.
func Run(opts Options) error {
	if opts.Editor == "" {
		opts.Editor = editorFromEnv()
	}
	if themes.NoColorEnv(os.Getenv) {
		opts.NoColor = true
	}
	m := New(opts)
	m.frames = &frameCache{} // the screen at most frameRate times a second (frames.go)
	defer func() { m.Close() }()
	p := tea.NewProgram(m, tea.WithFPS(frameRate))
	final, err := p.Run()
	fm, ok := final.(Model)
	if ok && fm.cache != m.cache {
		fm.Close() // switched context, or connected after the start
	}
	if ok && opts.Client == nil && fm.client != nil {
		fm.client.Close() // the one Dial (or the last :ctx) opened
	}
	if ok && err == nil && fm.client == nil && fm.dial.err != nil {
		return fm.dial.err // the screen said so; the shell hears it too
	}
	return err
}

func editorFromEnv() string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := os.Getenv(v); e != "" {
			return e
		}
	}
	return "vi"
}

// nextID issues a request id for key and remembers it as the newest.
func (m *Model) nextID(key string) uint64 {
	m.seq++
	m.reqs[key] = m.seq
	return m.seq
}

// current reports whether id is still the newest request for key.
func (m *Model) current(key string, id uint64) bool {
	return m.reqs[key] == id
}

// setStatus shows a one-line message.
func (m *Model) setStatus(level common.Level, text string) {
	m.status = common.Status{Text: text, Level: level, At: m.now()}
}
