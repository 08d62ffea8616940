package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops/scan"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
)

// The `f` search and the `:locks` scan run as a walk on their own
// goroutine. It reports progress through a channel that one self-re-arming
// command listens to, ends with a searchMsg, and stops early when the user
// presses esc (its context is cancelled; what was found so far is shown).

const (
	// searchReadLimit bounds the nodes whose data one search reads (names
	// of every listed directory are always matched).
	searchReadLimit = 20000
	// searchProgressEvery caps the progress messages' rate.
	searchProgressEvery = 100 * time.Millisecond
	searchTimeout       = 2 * time.Minute
)

// searchRun is a walk in progress.
type searchRun struct {
	cancel     context.CancelFunc
	ch         <-chan tea.Msg
	listed     int    // names matched so far
	read       int    // nodes whose data was read so far
	found      int    // matches so far
	dir        string // directory being read
	cancelling bool
	spin       spinner.Model
}

// searchProgressMsg reports how far a search got.
type searchProgressMsg struct {
	id     uint64
	listed int
	read   int
	found  int
	dir    string
}

// beginSearch starts a walk below root for query ("" with locks: the
// `:locks` scan) and returns the commands that run and follow it.
func (m *Model) beginSearch(root, query string, locks bool) tea.Cmd {
	if m.search.run != nil {
		m.search.run.cancel()
	}
	m.stopLocksFollow()
	ctx, cancel := context.WithTimeout(context.Background(), searchTimeout)
	// Room for one progress report and the final message: the walk never
	// blocks on an abandoned channel.
	ch := make(chan tea.Msg, 2)
	id := m.nextID("search")
	spin := spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(m.st.Info))
	q := query
	if locks {
		q = "locks"
	}
	m.search = searchState{root: root, query: q, running: true,
		run: &searchRun{cancel: cancel, ch: ch, spin: spin}}
	c, rc := m.client, m.redisFindClient()
	start := func() tea.Msg {
		if rc != nil {
			go redisFindWalk(ctx, cancel, rc, id, root, query, ch)
		} else if locks {
			go scanLocksWalk(ctx, cancel, c, id, root, ch)
		} else {
			go searchWalk(ctx, cancel, c, id, root, query, ch)
		}
		return <-ch
	}
	return tea.Batch(start, spin.Tick)
}

// listenSearch waits for the walk's next message.
func listenSearch(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-ch }
}

// cancelSearch stops the walk; its final message shows what was found.
func (m *Model) cancelSearch() {
	r := m.search.run
	if r == nil || r.cancelling {
		return
	}
	r.cancelling = true
	r.cancel()
	m.setStatus(common.LevelInfo, "Stopping the search…")
}

// onSearchProgress records a progress report and listens for the next.
func (m *Model) onSearchProgress(msg searchProgressMsg) tea.Cmd {
	r := m.search.run
	if !m.current("search", msg.id) || r == nil {
		return nil
	}
	r.listed, r.read, r.found, r.dir = msg.listed, msg.read, msg.found, msg.dir
	return listenSearch(r.ch)
}

// onSearchSpin advances the spinner while a walk runs (and lets it stop
// ticking when none does).
func (m *Model) onSearchSpin(msg spinner.TickMsg) tea.Cmd {
	r := m.search.run
	if r == nil || !m.search.running || msg.ID != r.spin.ID() {
		return nil
	}
	var cmd tea.Cmd
	r.spin, cmd = r.spin.Update(msg)
	return cmd
}

// searchProgressLines is the results pane while a walk runs.
func (m *Model) searchProgressLines(w int) []string {
	st := m.st
	r := m.search.run
	if r == nil {
		return []string{st.Muted.Render("working…")}
	}
	head := r.spin.View() + " " + st.Info.Render("searching")
	if m.search.query == "locks" {
		head = r.spin.View() + " " + st.Info.Render("looking for locks")
	}
	if r.cancelling {
		head = r.spin.View() + " " + st.Warning.Render("stopping…")
	}
	lines := []string{head, ""}
	if m.search.query == "locks" || m.redis != nil { // (Redis: names only)
		lines = append(lines,
			st.Key.Render("nodes    ")+st.Value.Render(fmt.Sprint(r.listed)),
			st.Key.Render("found    ")+st.Value.Render(fmt.Sprint(r.found)))
	} else {
		lines = append(lines,
			st.Key.Render("names    ")+st.Value.Render(fmt.Sprint(r.listed)),
			st.Key.Render("data     ")+st.Value.Render(fmt.Sprintf("%d of at most %d", r.read, searchReadLimit)),
			st.Key.Render("matches  ")+st.Value.Render(fmt.Sprint(r.found)))
	}
	if r.dir != "" {
		lines = append(lines, st.Key.Render("in       ")+st.Value.Render(common.Truncate(printable.String(r.dir), max(w-9, 8))))
	}
	return append(lines, "", st.Muted.Render("esc stops and shows what was found"))
}

// progressSender rate-limits progress reports; a report is dropped when
// the previous one was not taken yet (only the newest matters), so the
// channel always has room for the final message.
type progressSender struct {
	ch   chan<- tea.Msg
	last time.Time
}

func (p *progressSender) send(msg searchProgressMsg, force bool) {
	if !force && time.Since(p.last) < searchProgressEvery {
		return
	}
	if len(p.ch) == 0 { // the walk is the only sender
		p.ch <- msg
		p.last = time.Now()
	}
}

// searchWalk walks below root breadth first ([zkview.Client.Walk]): every
// listed name is matched, and the children's data too until
// searchReadLimit nodes were read (below that, the walk stops). It sends
// progress and ends with exactly one searchMsg. Cancelling ctx ends it
// early with what was found.
func searchWalk(ctx context.Context, cancel context.CancelFunc, c *zkview.Client, id uint64, root, query string, ch chan<- tea.Msg) {
	defer cancel()
	msg := searchMsg{id: id, root: root, query: query}
	prog := progressSender{ch: ch}
	q := strings.ToLower(query)
	qb := []byte(query)
	listed, read, asked := 0, 0, 0
	readData := func(_ string, names []string) bool {
		if asked >= searchReadLimit {
			msg.truncated = true // names still matched; no more data read
			return false
		}
		asked += len(names)
		return true
	}
	err := c.Walk(ctx, root, zkview.WalkOptions{Read: readData}, func(d *zkview.WalkDir) bool {
		if d.Err != nil {
			if errors.Is(d.Err, zk.ErrNoNode) || errors.Is(d.Err, zk.ErrNoAuth) {
				msg.skipped.note(d.Path, d.Err)
			} else if msg.err == nil {
				msg.err = d.Err
				cancel()
			}
			return false
		}
		for i, n := range d.Names {
			if strings.Contains(strings.ToLower(n), q) {
				hit := searchHit{Path: zkview.Join(d.Path, n)}
				if d.Nodes != nil {
					hit.Path = d.Nodes[i].Path // the same string, not another
				}
				msg.hits = append(msg.hits, hit)
			}
		}
		listed += len(d.Names)
		for i := range d.Nodes {
			n := &d.Nodes[i]
			if n.Err != nil {
				continue
			}
			read++
			if len(qb) > 0 && !strings.Contains(strings.ToLower(d.Names[i]), q) && bytes.Contains(n.Data, qb) {
				msg.hits = append(msg.hits, searchHit{Path: n.Path, InData: true})
			}
		}
		prog.send(searchProgressMsg{id: id, listed: listed, read: read, found: len(msg.hits), dir: d.Path}, false)
		return d.Nodes != nil // below the read limit the walk stops
	})
	switch {
	case ctx.Err() != nil && msg.err == nil:
		msg.truncated, msg.cancelled = true, true
	case err != nil && msg.err == nil:
		msg.err = err
	}
	msg.scanned = listed
	sort.Slice(msg.hits, func(i, j int) bool { return msg.hits[i].Path < msg.hits[j].Path })
	ch <- msg
}

// scanLocksWalk is `:locks`: every lock directory below root, decoded.
func scanLocksWalk(ctx context.Context, cancel context.CancelFunc, c *zkview.Client, id uint64, root string, ch chan<- tea.Msg) {
	defer cancel()
	msg := searchMsg{id: id, root: root, query: "locks"}
	prog := progressSender{ch: ch}
	progress := func(nodes, locks int) {
		prog.send(searchProgressMsg{id: id, listed: nodes, found: locks}, false)
	}
	qs, err := scan.Scan(ctx, c, root, scan.Options{Skipped: msg.skipped.note, Progress: progress})
	switch {
	case errors.Is(err, scan.ErrTruncated):
		msg.truncated = true
	case err != nil && ctx.Err() != nil:
		msg.truncated, msg.cancelled = true, true
	case err != nil:
		msg.err = err
	}
	for _, q := range qs {
		msg.hits = append(msg.hits, searchHit{Path: q.Path, Note: fmt.Sprintf("%s · %d", q.Kind, len(q.Participants))})
	}
	msg.scanned = len(qs)
	ch <- msg
}

// searchState is the `f` search and the `:locks` list.
type searchState struct {
	root      string
	query     string
	hits      []searchHit
	scanned   int
	truncated bool
	running   bool
	cursor    int
	offset    int
	run       *searchRun   // the walk in progress (search.go)
	follow    *locksFollow // the `:locks` list kept current (locks_follow.go)
}

func (m *Model) onSearch(msg searchMsg) tea.Cmd {
	if !m.current("search", msg.id) {
		return nil
	}
	m.search.running = false
	m.search.run = nil
	if msg.err != nil {
		m.setStatus(common.LevelErr, fmt.Sprintf("Search below %s failed: %v", msg.root, msg.err))
		return nil
	}
	m.search.hits = msg.hits
	m.search.scanned = msg.scanned
	m.search.truncated = msg.truncated
	m.search.cursor = 0
	m.mode = modeResults
	note := ""
	switch {
	case msg.cancelled && m.search.query == "locks":
		note = " (stopped early: the list is incomplete)"
	case msg.cancelled:
		note = fmt.Sprintf(" (stopped after %d names: the list is incomplete)", msg.scanned)
	case msg.truncated && m.search.query == "locks":
		note = " (stopped after the scan's node limit: search a narrower path)"
	case msg.truncated:
		note = fmt.Sprintf(" (data read of the first %d nodes only; names of all %d)", searchReadLimit, msg.scanned)
	}
	level, skipped := common.LevelInfo, skippedText(msg.skipped)
	if skipped != "" {
		level = common.LevelWarn
	}
	if m.search.query == "locks" {
		m.setStatus(level, fmt.Sprintf("%s below %s%s.%s ⏎ opens one.", common.Plural(len(msg.hits), "lock", "locks"), msg.root, note, skipped))
		if msg.cancelled || msg.truncated || m.redis != nil {
			return nil
		}
		return m.followLocks(msg.root) // the list kept current from now on
	}
	m.setStatus(level, fmt.Sprintf("%s for %q below %s%s.%s", common.Plural(len(msg.hits), "match", "matches"), msg.query, msg.root, note, skipped))
	return nil
}

// skippedText is the status line's word on the subtrees a walk left out
// ("" when none).
func skippedText(s skippedTrees) string {
	if s.n == 0 {
		return ""
	}
	why := "deleted meanwhile"
	if errors.Is(s.err, zk.ErrNoAuth) {
		why = "not readable with this session's credentials (NoAuth; see --auth-file)"
	}
	if s.n == 1 {
		return fmt.Sprintf(" Skipped %s: %s.", s.first, why)
	}
	return fmt.Sprintf(" Skipped %d subtrees, first %s: %s.", s.n, s.first, why)
}
