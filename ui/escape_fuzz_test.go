package ui

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/evict"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/lockops/take"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/detail"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/zkview"
)

// How FuzzServerTextEscaped knows that nothing of the server's text
// reached a frame unescaped: every style the program draws with is made
// plain (colours and attributes dropped, borders and padding kept, so the
// layout is the same), so the frame holds no escape sequence of the
// program's own, and each of its lines must then be text that
// printable.String leaves as it is: no ESC, no other C0 control, no DEL,
// no C1 control, no byte that is not UTF-8, no bidi or other format
// character. A frame with the program's own styles could not be checked
// this way: the data's "\x1b[1m" is the same bytes as the program's bold.
//
// The text inputs of the dialogs are the one exception: they draw their
// cursor and placeholder in styles of their own (SGR sequences a theme
// does not reach). In dialog frames the SGR sequences are taken out
// before the check, and to keep that sound the name and data those
// frames are drawn with have their ESC bytes replaced by SUB (0x1a),
// another C0 control escaped the same way: a SUB in the frame is a leak.

// plainStyles makes every style of st draw no escape sequence.
func plainStyles(st *themes.Styles) {
	v := reflect.ValueOf(st).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		s, ok := f.Interface().(lipgloss.Style)
		if !ok {
			continue
		}
		b, top, right, bottom, left := s.GetBorder()
		pt, pr, pb, pl := s.GetPadding()
		f.Set(reflect.ValueOf(lipgloss.NewStyle().Border(b, top, right, bottom, left).Padding(pt, pr, pb, pl)))
	}
}

// plainFixture is the fixture drawing with plain styles.
func plainFixture(t testing.TB, w, h int) Model {
	m := fixture(t, w, h, "dark")
	plainStyles(m.st)
	m.help.Styles = help.Styles{}
	m.input.SetStyles(textinput.Styles{}) // the root's `:` line (not focused: no cursor drawn)
	m.detail.Invalidate()
	m.detail.Sync()
	return m
}

// sgr is one SGR sequence (what the text inputs draw their styles with).
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// checkFrame fails when a line of frame holds something to escape.
func checkFrame(t *testing.T, what, frame string) {
	t.Helper()
	for i, l := range strings.Split(frame, "\n") {
		if !printable.Clean(l) {
			t.Fatalf("%s: line %d holds text to escape: %q", what, i, l)
		}
	}
}

// elementName is s as one element of a path ("/" replaced, never empty).
func elementName(s string) string {
	s = strings.ReplaceAll(s, "/", "_")
	if s == "" || s == "." || s == ".." {
		s = "_" + s
	}
	return s
}

// FuzzServerTextEscaped draws every view over a name and data from a
// server: the tree and the breadcrumbs, the detail pane in each data
// viewer with the ACL, the owner's client and a read error, the status line, the
// `:cd` completion, the search results, the header while a node is read,
// the connect screen, the lock pane (a
// participant's name, data, client, watch target and problems; the read
// error), a Redis key's detail and its lock pane, every dialog that shows
// a name (the problems in full included), `:sessions` and `:ensemble`.
// The lock pane's timeline, fed by the pane's own reads, is drawn by
// lockpane's FuzzTimelineEscapesServerText.
func FuzzServerTextEscaped(f *testing.F) {
	seeds := []string{
		issueData, "\xc2\x9b2J", "\x9b31m", "\u202eevil\u202c \u2066x\u2069", "\xff\xfe\xe2\x82",
		"tab\tnew\nline\rcr\x7f", strings.Repeat("long-line-", 100), `{"a":"\u009b\u202e"}`,
	}
	for _, s := range seeds {
		f.Add(s, []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		drawViews(t, name, data)
		sub := func(s string) string { return strings.ReplaceAll(s, "\x1b", "\x1a") }
		drawDialogs(t, sub(name), []byte(sub(string(data))))
	})
}

// drawViews draws the views that hold no text input.
func drawViews(t *testing.T, name string, data []byte) {
	text := string(data)
	elem := elementName(name)
	p := "/app/" + elem
	m := withNode(t, plainFixture(t, 100, 30), elem, data)
	m = cdLocal(t, m, p)
	for range 5 { // auto, text, json, hex, base64
		checkFrame(t, "detail "+m.detail.Viewer().String(), m.View().Content)
		m = pressKeys(t, m, "v")
	}

	// The node read with its ACL and owner, then a read error; a
	// change refused with the server's words; the `:cd` completion.
	n := common.Node{Path: p, Data: data, HasStat: true, Stat: stat(40, int32(len(data)), 0, 0x77)}
	m.detail.SetEnsemble(&zkview.Ensemble{Members: []zkview.Member{{Addr: name, Clients: map[int64]string{0x77: name}}}})
	m.detail.OnSelect(n, []zk.ACL{{Perms: zk.PermAll, Scheme: name, ID: text}}, nil)
	m.detail.Sync()
	checkFrame(t, "detail with client and ACL", m.View().Content)
	m.detail.OnSelect(common.Node{Path: p}, nil, errors.New(text))
	m.detail.Sync()
	checkFrame(t, "detail read error", m.View().Content)
	m = step(t, m, mutationMsg{op: "delete", path: p, err: errors.New(text)})
	checkFrame(t, "status line", m.View().Content)
	m.mode, m.compl.candidates, m.compl.err = modeCommand, []string{name, text}, text
	checkFrame(t, "completion", m.View().Content)
	m.compl.err = ""
	checkFrame(t, "completion candidates", m.View().Content)
	m.mode = modeResults
	m.search = searchState{root: p, query: "x", hits: []searchHit{{Path: p, Note: text}, {Path: "/app/" + elementName(text)}}}
	checkFrame(t, "search results", m.View().Content)
	m.mode = modeNormal
	m.detail.Select(p, common.Node{}, false, false)
	checkFrame(t, "the header while the node is read", m.View().Content)

	// The connect screen: the last failed attempt, then why it gave up.
	c := plainFixture(t, 100, 30)
	c.opts.Dial = func(context.Context, func(string)) (*zkview.Client, error) { return nil, nil }
	c.dial.problem = text
	checkFrame(t, "connecting", c.View().Content)
	c.dial.err = errors.New(text)
	checkFrame(t, "could not connect", c.View().Content)

	// The lock pane.
	m = withNode(t, m, elem, nil)
	m = cdLocal(t, m, p)
	m.detail.SetLock(true)
	m.lock.SetQueueAt(fuzzQueue(p, name, data), fixedTime)
	checkFrame(t, "lock pane", m.View().Content)
	m.lock.SetQueueAt(lockops.Queue{Path: p, Kind: lockops.KindCuratorMutex}, fixedTime.Add(time.Second))
	checkFrame(t, "lock pane with the nodes gone", m.View().Content)

	// Redis: a key's detail (a string through each viewer, a hash, a
	// list), then its lock pane read through a loader, and failing.
	m.detail.SetLock(false)
	m.detail.SetRedisMode(true)
	for _, v := range []redisview.Value{
		{Name: name, Server: name, Type: "string", Bytes: data, Size: int64(len(data)), TTL: time.Minute, At: fixedTime},
		{Name: name, Type: "hash", Size: 2, Elements: []redisview.Element{{First: name, Second: text}, {First: text, Second: name}}},
		{Name: name, Type: "list", Size: 1, Elements: []redisview.Element{{First: text}}},
		{Name: name, Type: "zset", Size: 1, Elements: []redisview.Element{{First: text, Second: name}}},
	} {
		m.detail.SetRedis(detail.RedisKey{Key: name, Value: v, Below: 3})
		for range 5 { // a string's viewers; another type once
			m.detail.Sync()
			checkFrame(t, "redis "+v.Type+" "+m.detail.Viewer().String(), m.View().Content)
			if v.Type != "string" {
				break
			}
			m.detail.NextViewer()
		}
	}
	m.detail.SetRedis(detail.RedisKey{Key: name, Group: true, Below: 3})
	m.detail.Sync()
	checkFrame(t, "redis group", m.View().Content)
	for _, fail := range []bool{false, true} {
		m.lock.SetLoader(func(context.Context, string) (lockops.Queue, error) {
			if fail {
				return lockops.Queue{}, errors.New(text)
			}
			return redisQueue(p, name, data), nil
		}, false)
		if cmd := m.lock.Show(true, p); cmd != nil {
			m.lock.Update(cmd())
		}
		m.detail.SetLock(true)
		checkFrame(t, "redis lock pane", m.View().Content)
		m.lock.Show(false, p)
	}

	// :sessions and :ensemble.
	s := plainFixture(t, 120, 30)
	s = pressKeys(t, typeKeys(t, pressKeys(t, s, ":"), "sessions /app"), "enter")
	s = step(t, s, sessionsViewMsg{id: s.nextID("sessions-view"), root: "/app", ss: fuzzSessions(p, name, text), at: fixedTime, err: errors.New(text)})
	checkFrame(t, ":sessions", s.View().Content)
	s = pressKeys(t, s, "j", "j")
	checkFrame(t, ":sessions, a lock selected", s.View().Content)
}

// drawDialogs draws every dialog that shows a name or the servers'
// words, over the tree, and `:ensemble` (its cursor row reversed by a
// style of its own): SGR sequences taken out, see the top.
func drawDialogs(t *testing.T, name string, data []byte) {
	text := string(data)
	p := "/app/" + elementName(name)
	m := withNode(t, plainFixture(t, 100, 30), elementName(name), data)
	m = cdLocal(t, m, p)
	q := fuzzQueue(p, name, data)
	m.detail.SetLock(true)
	m.lock.SetQueueAt(q, fixedTime)
	st, keys, lk := m.st, m.keys, common.DefaultLockKeyMap()
	held := &take.Held{Path: p, Node: q.Participants[0].Node, Mode: lockops.ModeExclusive, Acquired: fixedTime}
	fd := dialog.NewForceDelete(st, lk, q.Participants[1], name, 7, m.lock)
	pv := &evict.Preview{Node: q.Participants[1].Node, LockPath: p, Session: 0x77, Ephemeral: true, Client: name, Data: data,
		Recipe: string(q.Kind), Participant: true, NextHolders: []string{q.Participants[2].Node, text}, Warnings: []string{text}}
	fdBefore := dialog.NewForceDelete(st, lk, q.Participants[1], name, 8, m.lock)
	fd.Update(dialog.EvictPreviewMsg{ID: 7, Node: pv.Node, Preview: pv})
	waiter := *pv
	waiter.NextHolders = nil
	fdWaiter := dialog.NewForceDelete(st, lk, q.Participants[2], name, 9, m.lock)
	fdWaiter.Update(dialog.EvictPreviewMsg{ID: 9, Node: waiter.Node, Preview: &waiter})
	noPlan := func(string, take.Options) (uint64, tea.Cmd) { return 0, nil }
	for _, d := range []dialog.Dialog{
		dialog.NewDelete(st, keys, p, 1),
		dialog.NewDeleteTree(st, keys, p, 1, 3, 40),
		dialog.NewEdit(st, keys, p, 1, "", 40),
		dialog.NewCreate(st, keys, p, 40),
		fdBefore, fd, fdWaiter,
		dialog.NewRevoke(st, lk, q.Participants[0], name),
		dialog.NewQuitHolding(st, lk, held, m.lock),
		dialog.NewLost(st, lk, p, text, true),
		dialog.NewRejoinOffer(st, lk, p, text, take.Options{}),
		dialog.NewTake(st, lk, p, q.Kind, true, noPlan),
		dialog.NewRedisTake(st, lk, name, lockops.KindRedisSetNX),
		dialog.NewRedisEvict(st, lk, &redislock.EvictPreview{Key: name, Recipe: lockops.KindRedlock, Token: text, Holding: []string{name}, Others: []string{text}}),
		dialog.NewRedisQuit(st, lk, name),
		dialog.NewProblems(st, lk, "Problems of "+name, q.Participants[1].Node, []dialog.ProblemText{{Badge: "watch-missing", Detail: text}, {Badge: "stale", Detail: name}}),
	} {
		m.dialogs.Open(d)
		checkFrame(t, "dialog "+d.ID(), sgr.ReplaceAllString(m.View().Content, ""))
		m.dialogs.Close(d.ID())
	}

	e := plainFixture(t, 120, 30)
	e = pressKeys(t, typeKeys(t, pressKeys(t, e, ":"), "ensemble"), "enter")
	mem := zkview.Member{Addr: name, Mode: text, Version: text, Errs: map[string]error{"srvr": errors.New(text)}, Via: map[string]string{"srvr": "4lw"}}
	e = step(t, e, ensembleViewMsg{id: e.nextID("ensemble-view"), ens: &zkview.Ensemble{At: fixedTime, Members: []zkview.Member{{Addr: "127.0.0.1:2181", Mode: "leader"}, mem}}})
	checkFrame(t, ":ensemble", sgr.ReplaceAllString(e.View().Content, ""))
	e = step(t, e, ensembleViewMsg{id: e.nextID("ensemble-view"), ens: &zkview.Ensemble{At: fixedTime.Add(time.Second), Members: []zkview.Member{{Addr: "127.0.0.1:2181", Mode: "follower"}, {Addr: name, Mode: "leader"}}}})
	checkFrame(t, ":ensemble, changed", sgr.ReplaceAllString(e.View().Content, ""))
}

// fuzzQueue is a lock at p whose participants' names, data, clients and
// problems hold name and data.
func fuzzQueue(p, name string, data []byte) lockops.Queue {
	text := string(data)
	node := func(i int) string { return p + "/" + elementName(name) + "-lock-000000000" + string(rune('0'+i)) }
	yes := true
	return lockops.Queue{Path: p, Kind: lockops.KindCuratorMutex, Context: []lockops.Field{{Key: name, Value: text}},
		Participants: []lockops.Participant{
			{Node: node(1), Name: elementName(name) + "-lock-0000000001", State: lockops.StateHolding, Mode: lockops.ModeExclusive,
				Session: 0x77, Ephemeral: true, Client: name, Data: data, Ctime: fixedTime.Add(-time.Minute)},
			{Node: node(2), Name: elementName(text), State: lockops.StateWaiting, Mode: lockops.ModeExclusive, Position: 1,
				Session: 0x78, Ephemeral: true, Client: text, Data: data, Watches: node(1), WatchKind: lockops.WatchData, WatchObserved: &yes, Ctime: fixedTime},
			{Node: node(3), Name: "w3", State: lockops.StateWaiting, Mode: lockops.ModeExclusive, Position: 2,
				Watches: p + "/" + elementName(text), WatchKind: lockops.WatchData, Ctime: fixedTime},
			{Node: node(4), Name: "w4", State: lockops.StateWaiting, Mode: lockops.ModeExclusive, Position: 3,
				Watches: p, WatchKind: lockops.WatchChildren, Ctime: fixedTime},
		},
		Problems: []lockops.Problem{
			{Kind: "watch-missing", Node: node(2), Detail: name + " " + text},
			{Kind: "stale", Detail: text},
		}}
}

// redisQueue is a Redis lock at p (its key name) held with token data.
func redisQueue(p, name string, data []byte) lockops.Queue {
	return lockops.Queue{Path: p, Kind: lockops.KindRedisSetNX,
		Participants: []lockops.Participant{{Node: p + "#" + string(data), Name: name, State: lockops.StateHolding, Data: data, HasTTL: true, TTL: time.Minute}},
		Problems:     []lockops.Problem{{Kind: "stale", Node: name, Detail: string(data)}}}
}

// fuzzSessions is a session holding a lock at p and waiting by watch on
// a node named by text, its client name and its last operation text.
func fuzzSessions(p, name, text string) []diagnose.Session {
	return []diagnose.Session{{ID: 0x77, Client: name, Member: text, LastOp: text, Timeout: time.Second, Established: fixedTime, EphemeralsKnown: true,
		Holds:   []diagnose.SessionLock{{Lock: p, Kind: lockops.KindCuratorMutex, Node: p + "/" + elementName(name), Mode: lockops.ModeExclusive, Since: fixedTime}},
		WaitsOn: []diagnose.SessionLock{{Lock: "/app/" + elementName(text), Kind: lockops.KindKazooLock, Node: text, Mode: lockops.ModeExclusive, WatchOnly: true}}}}
}
