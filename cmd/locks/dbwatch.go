package locks

// `locks --watch` on a database server: one read (one SQL statement)
// every --interval, drawn as the ZooKeeper watch draws (watch.go's
// frames, the same table, JSON lines and --changes).

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/dbview"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/dblock"
	"github.com/zkscope/zkscope/lockops/history"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
)

// runDBWatch is `zkscope locks [KEY] --watch` on a database server, until
// ctx ends (Ctrl-C).
func runDBWatch(cmd *cobra.Command, f *cmdutil.Factory, args []string, o locksOptions, do dblock.DiagnoseOptions) error {
	if err := refuseZooKeeperFlags(cmd, true); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, c, _, err := f.OpenDB(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	filter := dbFilter(args)
	r := renderer{servers: []string{c.Server()}, json: o.JSON, tty: cmdutil.WriterIsTerminal(o.Out), held: true}
	w := newWatchOutput(o.Out, o.ErrOut, cmp.Or(filter, c.Server()), o.JSON, r.tty)
	d := dbWatch{held: map[dbHolder]time.Time{}}
	rec, closeRec, err := startDBRecording(o, filter, c)
	if err != nil {
		return err
	}
	defer closeRec()
	for {
		queues, err := readDBQueues(ctx, o.ErrOut, c, filter, do)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			w.problem(err)
		default:
			rec.observe(queues, time.Now())
			draw := d.next(queues, r, o.Changes)
			if draw == nil {
				break // --changes, and nothing changed: no line
			}
			if err := w.frame(draw); err != nil {
				return fmt.Errorf("draw: %w", err)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(o.Interval):
		}
	}
}

// dbHolder is one session holding one lock.
type dbHolder struct {
	path    string
	session int64
}

// dbWatch is what the reads so far have shown.
type dbWatch struct {
	reads int
	held  map[dbHolder]time.Time // when each holder was first seen holding (zero: held at the first read)
	last  map[string]string      // each lock's queue as last drawn (dbQueueKey)
}

// next notes the holders of queues (the read just made) and returns how
// to draw it: the whole report, or with changes (after the first read)
// only the locks that changed and those gone.
func (d *dbWatch) next(queues []lockops.Queue, r renderer, changes bool) func(io.Writer) error {
	now := time.Now()
	holding := map[dbHolder]time.Time{}
	for i := range queues {
		for j := range queues[i].Participants {
			p := &queues[i].Participants[j]
			if p.State != lockops.StateHolding {
				continue
			}
			k := dbHolder{queues[i].Path, p.Session}
			since, ok := d.held[k]
			if !ok && d.reads > 0 {
				since = now // seen to begin holding between two reads
			}
			holding[k] = since
			if !since.IsZero() {
				p.HeldSince, p.HeldSource = since, lockops.HeldSeen
			}
		}
	}
	d.held = holding
	d.reads++
	was := d.last
	d.last = make(map[string]string, len(queues))
	var changed []lockops.Queue
	for _, q := range queues {
		k := dbQueueKey(q)
		d.last[q.Path] = k
		if was[q.Path] != k {
			changed = append(changed, q)
		}
	}
	if !changes || d.reads == 1 {
		return func(out io.Writer) error { return renderDB(out, r, queues) }
	}
	gone := []string{}
	for p := range was {
		if _, ok := d.last[p]; !ok {
			gone = append(gone, p)
		}
	}
	slices.Sort(gone)
	if len(changed) == 0 && len(gone) == 0 {
		return nil
	}
	return func(out io.Writer) error {
		return report.WriteJSONChanges(printable.JSON(out), r.servers, changed, gone, nil, nil)
	}
}

// dbQueueKey is what of a lock's queue a change is: who holds and waits,
// in what order and mode, and its problems' kinds (not their ages).
func dbQueueKey(q lockops.Queue) string {
	var b strings.Builder
	for _, p := range q.Participants {
		fmt.Fprintf(&b, "%d %s %s %s|", p.Session, p.State, p.Mode, p.Watches)
	}
	for _, pr := range q.Problems {
		fmt.Fprintf(&b, "%s %s|", pr.Kind, pr.Node)
	}
	return b.String()
}

// renderDB draws a whole frame: the `locks --json` document, or the table
// with the HELD column.
func renderDB(out io.Writer, r renderer, queues []lockops.Queue) error {
	if r.json {
		return report.WriteJSON(printable.JSON(out), r.servers, queues)
	}
	if len(queues) == 0 {
		_, err := fmt.Fprintf(out, "no advisory or user-level locks held or awaited on %s\n", printable.String(r.servers[0]))
		return err
	}
	return report.WriteTableWith(out, queues, time.Now(), report.TableOptions{FullNames: true, Held: true})
}

// dbRecording is --record on a database server: every read's changes
// written by history's DBRecorder until a write fails (then said once,
// and the watch goes on).
type dbRecording struct {
	rec    *history.DBRecorder
	errOut io.Writer
}

// startDBRecording creates o.Record's file (none: a recording that
// records nothing) and writes its header; the returned func closes it.
func startDBRecording(o locksOptions, filter string, c *dbview.Client) (*dbRecording, func(), error) {
	if o.Record == "" {
		return &dbRecording{}, func() {}, nil
	}
	f, err := createRecordFile(o.Record)
	if err != nil {
		return nil, nil, err
	}
	rec, err := history.NewDBRecorder(f, filter, []string{c.Server()}, dblock.KindOf(c.Kind()), time.Now())
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &dbRecording{rec: rec, errOut: o.ErrOut}, func() { rec.Flush(); f.Close() }, nil
}

// observe records what the read made at seen showed.
func (d *dbRecording) observe(queues []lockops.Queue, seen time.Time) {
	if d.rec == nil {
		return
	}
	if err := d.rec.Observe(queues, seen); err != nil {
		fmt.Fprintf(d.errOut, "zkscope: %s: recording stopped\n", printable.String(err.Error()))
		d.rec = nil
	}
}
