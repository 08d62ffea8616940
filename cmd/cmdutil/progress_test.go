package cmdutil

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestProgressLine: nothing in the first second, then one line redrawn
// in place at most every progressEvery, erased at the end; never into a
// pipe.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := &ProgressLine{w: &buf, locks: true, start: time.Now()}
	p.Update(10, 1)
	if buf.Len() != 0 {
		t.Fatalf("drawn before a second: %q", buf.String())
	}
	p.start = time.Now().Add(-2 * time.Second)
	p.Update(1000, 7)
	p.Update(1001, 7) // too soon: not redrawn
	if got := buf.String(); got != "\r\x1b[Kscanning: 1000 nodes, 7 locks, 500 nodes/s" {
		t.Fatalf("line %q", got)
	}
	p.Done()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Fatalf("not erased: %q", buf.String())
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if NewProgressLine(w, true, true) != nil || NewProgressLine(&buf, true, true) != nil {
		t.Error("a progress line on a pipe or a buffer")
	}
	var none *ProgressLine
	none.Update(1, 1) // a nil line draws nothing
	none.Done()
}
