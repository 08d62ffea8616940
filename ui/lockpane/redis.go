package lockpane

// The pane's loader seam: a lock that is no ZooKeeper directory (a Redis
// key) is read through a Loader the root gives, instead of through the
// ZooKeeper client. Redis has no watches: while shown, the pane reads the
// key again on every tick (the TTLs it shows count down between reads).

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/ui/common"
)

// Loader reads the lock at path (the tree's path of a Redis key): its
// queue decoded and diagnosed as of the read, with Path set to path and
// a node of its own for each participant (the pane keys its rows,
// labels and highlights by node), its key in Name.
type Loader func(ctx context.Context, path string) (lockops.Queue, error)

// SetLoader makes the pane read its locks through l instead of a
// ZooKeeper client (nil: through the client again); readOnly refuses
// every lock action with a message.
func (p *Model) SetLoader(l Loader, readOnly bool) {
	p.loader, p.readOnly = l, readOnly
}

// canRead reports whether the pane has something to read locks with.
func (p *Model) canRead() bool { return p.client != nil || p.loader != nil }

// redisPaneMsg marks the messages of the loader seam and of the Redis
// lock actions (Update routes them to updateRedis).
type redisPaneMsg interface{ redisPaneMsg() }

// loaderLoadedMsg answers a read through the Loader.
type loaderLoadedMsg struct {
	id    uint64
	path  string
	queue lockops.Queue
	at    time.Time
	err   error
}

func (loaderLoadedMsg) redisPaneMsg() {}

// loadThroughLoader is load for a lock read through the Loader: one read
// in flight at a time, one more after it when asked meanwhile.
func (p *Model) loadThroughLoader() tea.Cmd {
	switch {
	case p.path == "":
		return nil
	case p.loading:
		p.dirty = true
		return nil
	}
	p.loading, p.dirty, p.loadStarted = true, false, p.clock()
	p.loadID++
	return loaderCmd(p.loader, p.loadID, p.path, p.clock)
}

// loaderCmd reads the lock at path through l.
func loaderCmd(l Loader, id uint64, path string, clock func() time.Time) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		q, err := l(ctx, path)
		return loaderLoadedMsg{id: id, path: path, queue: q, at: clock(), err: err}
	}
}

// updateRedis routes the loader's and the Redis actions' messages.
func (p *Model) updateRedis(msg redisPaneMsg) tea.Cmd {
	switch msg := msg.(type) {
	case loaderLoadedMsg:
		return p.onLoaderLoaded(msg)
	}
	return p.updateRedisActions(msg)
}

func (p *Model) onLoaderLoaded(msg loaderLoadedMsg) tea.Cmd {
	if msg.id != p.loadID || msg.path != p.path {
		return nil
	}
	p.loading = false
	if !p.visible {
		return nil
	}
	if msg.err != nil {
		p.loadErr = msg.err
	} else {
		p.loadErr = nil
		p.loadedAt = msg.at
		p.SetQueueAt(msg.queue, msg.at)
		p.children, p.counted = 0, false
	}
	if p.dirty {
		return p.load()
	}
	return nil
}

// ttlLeft is a Redis participant's remaining time as of the pane's clock
// (its TTL was read at the last read).
func (p *Model) ttlLeft(x lockops.Participant) time.Duration {
	since := p.now.Sub(p.loadedAt)
	if p.loadedAt.IsZero() || since < 0 {
		since = 0
	}
	return x.TTL - since
}

// redisEntryLines draws a Redis participant: its label, state and key
// with the time it has left, then its token (or waiter id), its
// re-entries and problems.
func (p *Model) redisEntryLines(x lockops.Participant, label, mark string) []string {
	st := p.st
	labelStyle, icon := st.Waiter, "○"
	if x.State == lockops.StateHolding {
		labelStyle, icon = st.Holder, "●"
	}
	var left string
	switch {
	case !x.HasTTL:
		left = ""
	case x.TTL == lockops.NoExpiry:
		left = "no expiry"
	case x.State == lockops.StateWaiting && p.ttlLeft(x) <= 0:
		left = "deadline passed " + common.FormatAge(-p.ttlLeft(x)) + " ago"
	case x.State == lockops.StateWaiting:
		left = "deadline in " + common.FormatAge(p.ttlLeft(x))
	case p.ttlLeft(x) <= 0:
		left = "expired"
	default:
		left = "expires in " + common.FormatAge(p.ttlLeft(x))
	}
	head := fmt.Sprintf("%-3s %s ", label, icon)
	tag := ""
	if p.isOurRedis(x) {
		tag = " " + st.Badge.Render("you")
	}
	nameW := max(p.w-2-ansi.StringWidth(head)-ansi.StringWidth(left)-2-ansi.StringWidth(tag), 8)
	line := labelStyle.Render(head + fmt.Sprintf("%-*s", nameW, common.ShortName(x.Name, nameW)))
	if m := p.memo[x.Node]; m != nil && p.now.Before(m.freshUntil) {
		line = st.Fresh.Render(head + fmt.Sprintf("%-*s", nameW, common.ShortName(x.Name, nameW)))
	}
	first := mark + line + tag + "  " + st.Muted.Render(left)

	what := "token "
	if x.State == lockops.StateWaiting {
		what = "waiter "
	}
	second := "    " + st.Muted.Render(what) + st.Value.Render(common.DataSummary(x.Data))
	if x.Holds > 1 {
		second += st.Subtle.Render(" · ") + st.Muted.Render(fmt.Sprintf("entered %d times", x.Holds))
	}
	if m := p.memo[x.Node]; m != nil && x.State == lockops.StateHolding && !m.holdingSince.IsZero() {
		second += st.Subtle.Render(" · ") + st.Muted.Render("seen holding "+common.FormatAge(p.now.Sub(m.holdingSince)))
	}
	if pr, ok := p.redisProblemOf(x); ok {
		second = "    " + p.redisBadge(pr.Kind) + " " + strings.TrimPrefix(second, "    ")
	}
	return []string{first, second}
}

// redisProblemOf is the first problem about participant x: one naming its
// node, or its key when x is the only participant with that key or the
// problem's detail names x's token (a fair lock's waiters share a key).
func (p *Model) redisProblemOf(x lockops.Participant) (lockops.Problem, bool) {
	for _, pr := range p.queue.Problems {
		if pr.Node == x.Node || pr.Node == x.Name && (!p.nameShared(x.Name) || strings.Contains(pr.Detail, string(x.Data))) {
			return pr, true
		}
	}
	return lockops.Problem{}, false
}

// redisFooterLine is the pane's last line on Redis when no problem is
// (footerProblem): the selected participant's key and token.
func (p *Model) redisFooterLine() string {
	st := p.st
	x, ok := p.selected()
	if !ok {
		return ""
	}
	return st.Subtle.Render(printable.String(x.Name) + " · " + common.DataSummary(x.Data))
}

// nameShared reports whether more than one participant has key name (a
// fair lock's waiters): a problem naming the key is then one waiter's,
// the one its detail names.
func (p *Model) nameShared(name string) bool {
	n := 0
	for _, x := range p.queue.Participants {
		if x.Name == name {
			n++
		}
	}
	return n > 1
}

// redisBadge draws a problem's badge in the colour of its severity.
func (p *Model) redisBadge(kind lockops.ProblemKind) string {
	switch kind.Severity() {
	case lockops.SeverityError:
		return p.st.BadgeErr.Render(string(kind))
	case lockops.SeverityInfo:
		return p.st.Badge.Render(string(kind))
	}
	return p.st.BadgeWarn.Render(string(kind))
}
