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
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/zkview"
)

// Node changes (the forms' create, edit and delete, a whole tree's
// delete): the commands, audited, and what their results say.

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

// createCmd makes a node through the audited mutations.
func createCmd(mut audit.Mutations, p string, data []byte, flags int32) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		created, err := mut.Create(ctx, p, data, flags)
		if created == "" {
			created = p
		}
		return mutationMsg{op: "create", path: created, err: err, flags: flags}
	}
}

// setCmd writes data if the node is still at version.
func setCmd(mut audit.Mutations, p string, data []byte, version int32) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		_, err := mut.Set(ctx, p, data, version)
		return withVersionNow(mut.Client, mutationMsg{op: "edit", path: p, err: err}, version)
	}
}

// deleteCmd deletes p (no children) if it is still at version. A whole
// tree goes through [Model.beginDeleteTree].
func deleteCmd(mut audit.Mutations, p string, version int32) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		return withVersionNow(mut.Client, mutationMsg{op: "delete", path: p, err: mut.Delete(ctx, p, version)}, version)
	}
}

// onMutation reports a change and refreshes what it touched.
func (m *Model) onMutation(msg mutationMsg) tea.Cmd {
	if msg.op == "delete tree" {
		m.deleting = nil
	}
	if msg.err != nil {
		m.setStatus(common.LevelErr, mutationError(msg))
		if m.cache != nil {
			return m.selectPath(m.tree.CursorPath()) // show the current version
		}
		return nil
	}
	done := map[string]string{"create": "Created", "edit": "Saved", "delete": "Deleted", "delete tree": "Deleted the tree"}[msg.op]
	m.setStatus(common.LevelOK, fmt.Sprintf("%s %s.", done, msg.path))
	if m.cache == nil {
		return nil
	}
	var cmds []tea.Cmd
	if msg.op == "create" {
		m.made.Note(msg.path, msg.flags, msg.ttl)
		cmds = append(cmds, m.cd(msg.path))
	}
	cmds = append(cmds, m.selectPath(m.tree.CursorPath()))
	return tea.Batch(cmds...)
}

// mutationError is one plain sentence about a failed change and what to do.
func mutationError(msg mutationMsg) string {
	err := msg.err
	switch {
	case errors.Is(err, zkview.ErrReadOnly):
		return "Read-only mode: nothing was changed (started with --read-only or the context is read_only)."
	case errors.Is(err, zk.ErrBadVersion):
		return badVersionText(msg)
	case errors.Is(err, zk.ErrNotEmpty):
		return fmt.Sprintf("%s has children: use D to delete the whole tree.", msg.path)
	case errors.Is(err, zk.ErrNodeExists):
		return fmt.Sprintf("%s already exists.", msg.path)
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Sprintf("%s: the node (or its parent) no longer exists.", msg.path)
	case errors.Is(err, zk.ErrNoAuth):
		return fmt.Sprintf("%s: not allowed by the node's ACL.", msg.path)
	case errors.Is(err, zk.ErrNoChildrenForEphemerals):
		return "Ephemeral nodes cannot have children."
	}
	return fmt.Sprintf("%s failed: %v", msg.op, err)
}
