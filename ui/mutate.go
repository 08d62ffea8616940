package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/audit"
	"github.com/zkscope/zkscope/zkview"
)

// withVersionNow fills msg's current version when the change was refused
// because the node changed meanwhile, so the message can say which version
// it is at now. It runs in the command, after the refused change.
func withVersionNow(c *zkview.Client, msg mutationMsg, expected int32) mutationMsg {
	msg.expected = expected
	if c == nil || !errors.Is(msg.err, zk.ErrBadVersion) {
		return msg
	}
	if ok, st, err := c.Conn().Exists(c.Abs(msg.path)); err == nil && ok {
		msg.now, msg.nowKnown = st.Version, true
	}
	return msg
}

// badVersionText is the sentence for a change refused on its version.
func badVersionText(msg mutationMsg) string {
	nothing := "nothing was written"
	if msg.op == "delete" || msg.op == "delete tree" {
		nothing = "nothing was deleted"
	}
	if msg.nowKnown {
		return fmt.Sprintf("%s changed meanwhile (version %d now, you saw version %d); %s. The new version is shown: review it and try again.",
			msg.path, msg.now, msg.expected, nothing)
	}
	return fmt.Sprintf("%s changed meanwhile; %s. The new version is shown: review it and try again.", msg.path, nothing)
}

// deleteRun is a recursive delete in progress (the header's spinner shows
// how many nodes are gone).
type deleteRun struct {
	path    string
	deleted int
	ch      <-chan tea.Msg
}

// deleteProgressMsg reports how many nodes a recursive delete removed.
type deleteProgressMsg struct {
	path    string
	deleted int
}

// beginDeleteTree deletes p and everything below it if p is still at
// version (checked first; the delete itself then also stops if p changes:
// see [zkview.Client.DeleteRecursive]). Children go in atomic batches; the
// audit log gets one entry for the whole tree.
func (m *Model) beginDeleteTree(p string, version int32) tea.Cmd {
	c := m.client
	if c == nil {
		return nil
	}
	ch := make(chan tea.Msg, 2)
	m.deleting = &deleteRun{path: p, ch: ch}
	start := func() tea.Msg {
		go deleteTreeWalk(c, p, version, ch)
		return <-ch
	}
	return start
}

func deleteTreeWalk(c *zkview.Client, p string, version int32, ch chan<- tea.Msg) {
	msg := mutationMsg{op: "delete tree", path: p}
	defer func() {
		e := audit.Entry{Operation: lockops.OpDelete, Path: p, Version: &version, Result: audit.OK}
		switch {
		case errors.Is(msg.err, zkview.ErrReadOnly):
			e.Result, e.Error = audit.Refused, msg.err.Error()
		case msg.err != nil:
			e.Result, e.Error = audit.Failed, msg.err.Error()
		}
		audit.Append(c, e) // a failure to log never hides the result
		ch <- msg
	}()
	if c.Config().ReadOnly {
		msg.err = fmt.Errorf("delete %s: %w", p, zkview.ErrReadOnly)
		return
	}
	ok, st, err := c.Conn().Exists(c.Abs(p))
	switch {
	case err != nil:
		msg.err = fmt.Errorf("delete %s: %w", p, zkview.Explain(err))
		return
	case !ok:
		msg.err = fmt.Errorf("delete %s: %w", p, zk.ErrNoNode)
		return
	case st.Version != version:
		msg.err = fmt.Errorf("delete %s: %w", p, zk.ErrBadVersion)
		msg.expected, msg.now, msg.nowKnown = version, st.Version, true
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var last time.Time
	msg.err = c.DeleteRecursive(ctx, p, func(n int) {
		if time.Since(last) < 100*time.Millisecond || len(ch) > 0 {
			return // the walk is the only sender: room stays for the result
		}
		last = time.Now()
		ch <- deleteProgressMsg{path: p, deleted: n}
	})
	if errors.Is(msg.err, zk.ErrBadVersion) {
		msg.expected = version
		var ve *zkview.VersionError
		if errors.As(msg.err, &ve) && ve.Current >= 0 {
			msg.now, msg.nowKnown = ve.Current, true
		}
	}
}

// onDeleteProgress records a recursive delete's count and listens on.
func (m *Model) onDeleteProgress(msg deleteProgressMsg) tea.Cmd {
	r := m.deleting
	if r == nil || r.path != msg.path {
		return nil
	}
	r.deleted = msg.deleted
	ch := r.ch
	return func() tea.Msg { return <-ch }
}
