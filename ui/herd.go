package ui

import (
	"context"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/ui/herdview"
	"github.com/zkscope/zkscope/ui/lockpane"
)

// HerdFrame is both herd locks after a round of releases; HerdLock and
// HerdCounts are its parts ([herdview.Frame]).
type (
	HerdFrame  = herdview.Frame
	HerdLock   = herdview.Lock
	HerdCounts = herdview.Counts
)

// HerdOptions tune [RunHerd].
type HerdOptions struct {
	// Theme and NoColor as in [Options].
	Theme   string
	NoColor bool
	// Interval is the time between rounds of releases.
	Interval time.Duration
	// Step releases each lock once (release false: only reads them, for
	// the first frame) and returns what the locks look like after. It
	// runs in a command, never in Update.
	Step func(ctx context.Context, release bool) (HerdFrame, error)
	// Notice is a line the footer shows until a key is pressed.
	Notice string
}

// RunHerd runs `zkscope demo --herd`'s screen until q or Ctrl-C: every
// Interval a round of releases, the two queues drawn by lock panes side by
// side with what each release cost.
func RunHerd(o HerdOptions) error {
	if themes.NoColorEnv(os.Getenv) {
		o.NoColor = true
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := newHerdModel(ctx, o)
	_, err := tea.NewProgram(m, tea.WithFPS(frameRate)).Run()
	return err
}

// herdModel is the herd screen's tea.Model: two lock panes fed the
// queues each step read, and the view around them. Steps run in
// commands; only their answers change it.
type herdModel struct {
	ctx    context.Context
	o      HerdOptions
	st     *themes.Styles
	view   *herdview.View
	panes  []*lockpane.Model
	paused bool
	busy   bool // a step runs
	failed bool // a step failed: no more
}

// herdStepMsg is a step's answer; herdTickMsg says the interval passed.
type (
	herdStepMsg struct {
		frame HerdFrame
		err   error
	}
	herdTickMsg struct{}
)

func newHerdModel(ctx context.Context, o HerdOptions) *herdModel {
	p, _ := themes.Pick(o.Theme, true, o.NoColor)
	s := themes.New(p)
	m := &herdModel{ctx: ctx, o: o, st: &s}
	m.view = herdview.New(m.st, o.Interval)
	m.view.SetNotice(o.Notice)
	overlay := &dialog.Overlay{}
	for range 2 {
		m.panes = append(m.panes, lockpane.New(m.st, overlay))
	}
	return m
}

// Init implements [tea.Model]: the first read, no release.
func (m *herdModel) Init() tea.Cmd {
	m.busy = true
	return tea.Batch(tea.RequestBackgroundColor, m.step(false))
}

// step runs one step in a command.
func (m *herdModel) step(release bool) tea.Cmd {
	ctx, step := m.ctx, m.o.Step
	return func() tea.Msg {
		f, err := step(ctx, release)
		return herdStepMsg{frame: f, err: err}
	}
}

// Update implements [tea.Model].
func (m *herdModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.view.SetSize(msg.Width, msg.Height)
		w, h := m.view.PaneSize()
		for _, p := range m.panes {
			p.SetSize(w, h)
		}
	case tea.BackgroundColorMsg:
		if p, err := themes.Pick(m.o.Theme, msg.IsDark(), m.o.NoColor); err == nil {
			*m.st = themes.New(p) // the panes hold the same pointer
		}
	case tea.KeyPressMsg:
		m.view.SetNotice("")
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return m, tea.Quit
		case "space":
			m.paused = !m.paused
			m.view.SetPaused(m.paused)
			return m, m.next()
		}
	case herdStepMsg:
		m.busy = false
		if msg.err != nil {
			m.failed = true
			m.view.SetStatus(msg.err.Error())
			return m, nil
		}
		m.view.SetFrame(msg.frame)
		for i, l := range msg.frame.Locks {
			if i < len(m.panes) {
				m.panes[i].SetQueue(lockpane.WithWatcherRows(l.Queue))
			}
		}
		return m, tea.Tick(m.o.Interval, func(time.Time) tea.Msg { return herdTickMsg{} })
	case herdTickMsg:
		return m, m.next()
	}
	return m, nil
}

// next starts a round of releases unless one runs, the screen is paused
// or a step failed.
func (m *herdModel) next() tea.Cmd {
	if m.busy || m.paused || m.failed {
		return nil
	}
	m.busy = true
	return m.step(true)
}

// View implements [tea.Model].
func (m *herdModel) View() tea.View {
	views := make([]string, len(m.panes))
	for i, p := range m.panes {
		views[i] = p.View()
	}
	v := tea.NewView(m.view.Render(views))
	v.AltScreen = true
	v.WindowTitle = "zkscope demo --herd"
	return v
}
