package locks

// `locks --watch`: the frames lockops/follow's snapshots are drawn as,
// and --record.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops/follow"
	"github.com/zkscope/zkscope/lockops/history"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// watchOutput is where and how `locks --watch` draws its frames: on a
// terminal each frame clears the screen under a header; into a pipe the
// table frames follow each other under a header line; with --json each
// frame is one JSON document on one line (NDJSON), nothing else, written
// at once (line) through one escaping writer (esc), reused frame to frame.
type watchOutput struct {
	out, errOut io.Writer
	path        string
	json, tty   bool
	line        *lineWriter
	esc         io.Writer // printable.JSON(line)
}

func newWatchOutput(out, errOut io.Writer, path string, json, tty bool) watchOutput {
	line := &lineWriter{out: out}
	return watchOutput{out: out, errOut: errOut, path: path, json: json, tty: tty, line: line, esc: printable.JSON(line)}
}

// watchLocks draws the locks at or below o.Path as they change, until ctx
// ends; with --record it records every change seen.
func watchLocks(ctx context.Context, c *zkview.Client, o locksOptions, r renderer) error {
	w := newWatchOutput(o.Out, o.ErrOut, o.Path, o.JSON, r.tty)
	fo := o.Scan.options(nil)
	fo.Interval = o.Interval
	fo.ScanCaches = true // each lock's first change read as its later ones (the memory of every lock's nodes)
	fo.Note = func(s string) { fmt.Fprintf(o.ErrOut, "zkscope: %s\n", printable.String(s)) }
	if o.Record != "" {
		rec, closeRec, err := startRecording(o.Record, o.Path, c.Servers())
		if err != nil {
			return err
		}
		defer closeRec()
		fo.Observer = rec
		fo.ObserveFailed = func(err error) {
			fmt.Fprintf(o.ErrOut, "zkscope: %s: recording stopped\n", printable.String(err.Error()))
		}
	}
	var all follow.Locks // every lock as the snapshots showed them (not kept with --changes)
	var drawn time.Time  // the last frame's
	var changes report.ChangesWriter
	show := func(s follow.Snapshot) error {
		if !o.Changes {
			all.Apply(s)
		}
		unchanged := s.Changes && len(s.Queues) == 0 && len(s.Gone) == 0
		if unchanged && (o.Changes || time.Since(drawn) < o.Interval) {
			return nil // nothing changed: no line (a frame every interval still, times tick)
		}
		drawn = time.Now()
		draw := func(out io.Writer) error {
			full := s // with --changes a whole snapshot's (s.Changes false): every lock
			if !o.Changes {
				full.Queues, full.Changes, full.Gone = all.Queues(), false, nil
			}
			return r.render(out, full)
		}
		if o.Changes && s.Changes {
			draw = func(io.Writer) error {
				return changes.Write(w.esc, r.servers, s.Queues, s.Gone, &s.Verification, s.Unreadable)
			}
		}
		if err := w.frame(draw); err != nil {
			return fmt.Errorf("draw: %w", err)
		}
		return nil
	}
	return follow.Follow(ctx, c, o.Path, fo, show, w.problem)
}

// frame writes one frame drawn by draw (with --json, draw writes a
// document to w.line, or escaped to w.esc).
func (w watchOutput) frame(draw func(io.Writer) error) error {
	if w.json {
		w.line.b = w.line.b[:0] // (what a failed frame left)
		if err := draw(w.line); err != nil {
			return err
		}
		return w.line.end()
	}
	if w.tty {
		fmt.Fprint(w.out, "\x1b[H\x1b[2J")
	}
	fmt.Fprintf(w.out, "zkscope locks %s — %s — every change, Ctrl-C quits\n\n", w.path, time.Now().Format("15:04:05"))
	if err := draw(w.out); err != nil {
		return err
	}
	if !w.tty {
		_, err := fmt.Fprintln(w.out)
		return err
	}
	return nil
}

// problem reports a failed scan: on the screen in place of a frame, else
// on stderr (a pipe of frames must stay parseable).
func (w watchOutput) problem(err error) {
	if w.tty && !w.json {
		fmt.Fprintf(w.out, "\x1b[H\x1b[2J%s  (retrying)\n", printable.String(zkview.Explain(err).Error()))
		return
	}
	fmt.Fprintf(w.errOut, "zkscope: %s (retrying)\n", printable.String(zkview.Explain(err).Error()))
}

// lineWriter gathers a JSON document written through it as one line for
// out: its newlines dropped (JSON strings hold none unescaped, so what
// remains is the same document), written with the newline that ends it
// in one write (a big one, every lock, in parts of lineFlush or so).
type lineWriter struct {
	out io.Writer
	b   []byte
}

// lineFlush is how much of a line lineWriter holds before writing it.
const lineFlush = 64 << 10

func (l *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.b = append(l.b, p...)
			break
		}
		l.b = append(l.b, p[:i]...)
		p = p[i+1:]
	}
	if len(l.b) >= lineFlush {
		if err := l.flush(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// end ends the line and writes it.
func (l *lineWriter) end() error {
	l.b = append(l.b, '\n')
	err := l.flush()
	if cap(l.b) > 16*lineFlush {
		l.b = nil // a whole frame's room: not kept for the small ones after
	}
	return err
}

func (l *lineWriter) flush() error {
	_, err := l.out.Write(l.b)
	l.b = l.b[:0]
	return err
}

// newRecordFile refuses, before anything connects, a --record FILE that
// exists (a recording is never overwritten) or whose directory does not;
// "" is no recording. startRecording checks again as it creates the file.
func newRecordFile(file string) error {
	if file == "" {
		return nil
	}
	if _, err := os.Lstat(file); err == nil {
		return cmdutil.Usagef("--record %s: the file exists; record to a new file (zkscope never overwrites one)", file)
	}
	if st, err := os.Stat(filepath.Dir(file)); err != nil || !st.IsDir() {
		return cmdutil.Usagef("--record %s: no directory %s to create it in", file, filepath.Dir(file))
	}
	return nil
}

// startRecording opens FILE for --record (a new file: a recording is
// never overwritten) and writes its header; the returned func closes it.
func startRecording(file, root string, servers []string) (*history.Recorder, func(), error) {
	f, err := createRecordFile(file)
	if err != nil {
		return nil, nil, err
	}
	rec, err := history.NewRecorder(f, root, servers, time.Now())
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return rec, func() { rec.Flush(); f.Close() }, nil
}

// createRecordFile creates --record's FILE, a new file.
func createRecordFile(file string) (*os.File, error) {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("--record %s: the file exists; record to a new file (zkscope never overwrites one)", file)
	}
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return f, nil
}
