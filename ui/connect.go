package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
)

// The connection at start ([Options.Dial]): the UI shows at once with a
// "connecting to …" screen, the last failed attempt under it, and starts
// when the client arrives in a dialedMsg. If the connect gives up, the
// screen says why in one line; r tries again, q quits. `:ctx NAME`
// connects to another context (connectCmd) and switches to it
// (onContext).

// dialState is the connect at start while it runs or after it failed.
type dialState struct {
	problem string // the last failed attempt ("" when none yet)
	err     error  // the connect gave up
	cancel  context.CancelFunc
}

// dialing reports whether the model waits for its first connection.
func (m *Model) dialing() bool { return m.client == nil && m.opts.Dial != nil }

// startDial starts Dial and the listener for its problems.
func (m *Model) startDial() tea.Cmd {
	if m.dial.cancel != nil {
		m.dial.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.dial = dialState{cancel: cancel}
	m.state = zkview.ConnEvent{State: zkview.StateConnecting, Server: strings.Join(m.opts.Servers, ",")}
	id := m.nextID("dial")
	problems := make(chan string, 8)
	done := make(chan struct{})
	report := func(p string) {
		select {
		case problems <- p:
		default: // the listener lags; a newer line follows
		}
	}
	dial := m.opts.Dial
	run := func() tea.Msg {
		defer close(done)
		c, err := dial(ctx, report)
		if err != nil && c != nil {
			c.Close()
			c = nil
		}
		return dialedMsg{id: id, client: c, err: err}
	}
	return tea.Batch(run, listenDial(problems, done))
}

// listenDial waits for the next failed attempt while the dial runs
// (re-armed by Update after each one).
func listenDial(problems <-chan string, done <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-problems:
			return dialProblemMsg{problem: p, problems: problems, done: done}
		case <-done:
			return nil
		}
	}
}

// onDialProblem shows the last failed attempt and listens for the next.
func (m *Model) onDialProblem(msg dialProblemMsg) tea.Cmd {
	if !m.dialing() {
		return nil
	}
	m.dial.problem = msg.problem
	return listenDial(msg.problems, msg.done)
}

// onDialed starts the UI on the new client, or keeps the reason it gave
// up for the screen.
func (m *Model) onDialed(msg dialedMsg) tea.Cmd {
	if !m.dialing() || !m.current("dial", msg.id) {
		if msg.client != nil {
			c := msg.client
			return func() tea.Msg { c.Close(); return nil } // a dial we stopped caring about
		}
		return nil
	}
	m.dial.cancel = nil
	if msg.err != nil {
		m.dial.err = msg.err
		m.state = zkview.ConnEvent{State: zkview.StateClosed}
		return nil
	}
	m.attach(msg.client, m.opts.Context)
	m.lock.SetClient(m.client, m.readOnly)
	m.keys.SetContext(false, false, !m.readOnly, !m.readOnly, m.db != nil)
	return tea.Batch(listenConn(m.conn), listenTree(m.cache),
		introspect(m.client, m.nextID("ensemble"), false), m.cd(m.opts.Start))
}

// handleDialKey: while connecting only q (quit) and, after a failure, r
// (try again) do anything.
func (m *Model) handleDialKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Quit, m.keys.ForceQuit):
		return tea.Quit
	case key.Matches(msg, m.keys.Refresh) && m.dial.err != nil:
		return m.startDial()
	}
	return nil
}

// dialView is the screen while connecting: the header, and a centred
// message with the last failed attempt, or why the connect gave up.
func (m *Model) dialView() string {
	st := m.st
	w := min(m.width-4, 100)
	servers := strings.Join(m.opts.Servers, ",")
	if servers == "" {
		servers = zkview.DefaultServer
	}
	var lines []string
	wrap := func(s lipgloss.Style, text string) {
		for _, l := range strings.Split(ansi.Wrap(text, w, " "), "\n") {
			lines = append(lines, s.Render(l))
		}
	}
	if m.dial.err != nil {
		wrap(st.Error, "Could not connect to "+servers+": "+printable.String(m.dial.err.Error()))
		lines = append(lines, "", st.Muted.Render("r tries again · q quits"))
	} else {
		wrap(st.Info, "Connecting to "+servers+"…")
		if m.dial.problem != "" {
			lines = append(lines, "")
			wrap(st.Warning, "Last attempt: "+printable.String(m.dial.problem))
		}
		lines = append(lines, "", st.Muted.Render("q quits"))
	}
	body := lipgloss.Place(m.width, m.height-1, lipgloss.Center, lipgloss.Center,
		lipgloss.JoinVertical(lipgloss.Center, lines...))
	return m.headerView() + "\n" + body
}

// connectCmd opens another context for `:ctx`.
func connectCmd(connect func(context.Context, string) (*zkview.Client, error), name string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := connect(ctx, name)
		return contextMsg{name: name, client: c, err: err}
	}
}

// onContext switches to the context `:ctx` opened (or says why not).
func (m *Model) onContext(msg contextMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus(common.LevelErr, fmt.Sprintf("Could not open context %s: %v", msg.name, msg.err))
		return nil
	}
	old := m.client
	m.Close() // the tree cache and the state subscription; no I/O
	var closeOld tea.Cmd
	if old != nil {
		closeOld = func() tea.Msg { old.Close(); return nil } // closing a session is a round trip
	}
	m.statsWant = map[string]bool{}
	m.lockProbed = map[string]int64{}
	m.detail.Reset()
	m.attach(msg.client, msg.name)
	m.lock.SetClient(m.client, m.readOnly)
	m.tree.Reset()
	m.setStatus(common.LevelOK, "Switched to context "+msg.name+".")
	return tea.Batch(closeOld, listenConn(m.conn), listenTree(m.cache), introspect(m.client, m.nextID("ensemble"), false), m.cd("/"))
}
