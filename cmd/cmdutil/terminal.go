package cmdutil

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"
)

// IsTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one too).
func IsTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(f.Fd())
}

// WriterIsTerminal reports whether w is a terminal.
func WriterIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && IsTerminal(f)
}

// ReaderIsTerminal is the terminal r reads from, when it is one: only a
// terminal can confirm a destructive change.
func ReaderIsTerminal(r io.Reader) (*os.File, bool) {
	f, ok := r.(*os.File)
	return f, ok && IsTerminal(f)
}

// SayWhenSlow prints line on w (a terminal only) if stop is not called
// within after; stop erases it again.
func SayWhenSlow(w *os.File, after time.Duration, line string) (stop func()) {
	if !IsTerminal(w) {
		return func() {}
	}
	var mu sync.Mutex
	said := false
	t := time.AfterFunc(after, func() {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprint(w, "zkscope: "+line)
		said = true
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		if said {
			fmt.Fprint(w, "\r\x1b[K")
			said = false
		}
	}
}
