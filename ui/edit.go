package ui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/ui/common"
)

// The `e` flow: the node's data goes to a temp file, $EDITOR runs on it,
// and what comes back is written only when it differs from what was read,
// with the version it was read at.
//
// Text (printable UTF-8) is edited as it is. Editors end the last line
// with a newline on save (vi always does), so when the data had no final
// newline, one final newline in the saved file is taken as the editor's
// and dropped: saving unchanged writes nothing. Binary data (anything
// else) is edited as a hex dump and parsed back strictly; a dump that
// does not parse is refused with the line at fault, nothing written.

// prepareEditCmd writes data to a temp file for the editor: as it is, or
// as a hex dump when it is binary.
func prepareEditCmd(p string, data []byte, version int32) tea.Cmd {
	orig := append([]byte(nil), data...)
	hex := !common.Printable(orig)
	return func() tea.Msg {
		content, suffix := orig, common.EditSuffix(p)
		if hex {
			content, suffix = common.HexDump(p, orig), ".hex"
		}
		f, err := os.CreateTemp("", "zkscope-*"+suffix)
		if err != nil {
			return editorMsg{path: p, err: fmt.Errorf("temp file for editing: %w", err)}
		}
		name := f.Name()
		_, werr := f.Write(content)
		if err := errors.Join(werr, f.Close()); err != nil {
			os.Remove(name)
			return editorMsg{path: p, err: fmt.Errorf("temp file for editing: %w", err)}
		}
		return editReadyMsg{path: p, file: name, version: version, orig: orig, hex: hex}
	}
}

// execEditor suspends the program and runs the editor on the temp file.
func execEditor(editor string, r editReadyMsg) tea.Cmd {
	fields := strings.Fields(editor)
	if len(fields) == 0 {
		fields = []string{"vi"}
	}
	cmd := exec.Command(fields[0], append(fields[1:], r.file)...)
	return tea.ExecProcess(cmd, func(err error) tea.Msg {
		return editorMsg{path: r.path, file: r.file, version: r.version, orig: r.orig, hex: r.hex, err: err}
	})
}

// readEdited reads the edited temp file back, removes it and decides what
// to write.
func readEdited(msg editorMsg) tea.Cmd {
	return func() tea.Msg {
		raw, err := os.ReadFile(msg.file)
		os.Remove(msg.file)
		if err != nil {
			return editedMsg{path: msg.path, err: fmt.Errorf("read the edited file: %w", err)}
		}
		data, changed, err := common.EditedData(msg.orig, raw, msg.hex)
		if err != nil {
			return editedMsg{path: msg.path, err: err}
		}
		return editedMsg{path: msg.path, data: data, version: msg.version, changed: changed}
	}
}

func (m *Model) onEditor(msg editorMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus(common.LevelErr, fmt.Sprintf("The editor failed (%v); nothing was changed. Set $EDITOR to your editor.", msg.err))
		return removeFile(msg.file)
	}
	return readEdited(msg)
}

func (m *Model) onEdited(msg editedMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.setStatus(common.LevelErr, fmt.Sprintf("Not saved (%v); nothing was written. Press e to edit again.", msg.err))
		return nil
	case !msg.changed:
		m.setStatus(common.LevelInfo, "No change: nothing written.")
		return nil
	}
	m.setStatus(common.LevelInfo, fmt.Sprintf("Writing %s (if still at version %d)…", msg.path, msg.version))
	return setCmd(m.mut, msg.path, msg.data, msg.version)
}

func removeFile(name string) tea.Cmd {
	if name == "" {
		return nil
	}
	return func() tea.Msg {
		os.Remove(name)
		return nil
	}
}
