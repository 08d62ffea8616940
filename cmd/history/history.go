// Package history is `zkscope history`: wiring only; the replay, its
// report and the readers of the log and of recordings are lockops/history's
// (this package's namesake).
package history

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/lockops/history"
	"github.com/zkscope/zkscope/lockops/report"
	"github.com/zkscope/zkscope/printable"
)

const historyLong = `Replay the locks at or below PATH from ZooKeeper's transaction log (--txnlog:
a server's data directory, its version-2 directory or its dataLogDir; a copy
taken from a production server is enough, no server needs to run; when the
early logs were purged, it starts from a snapshot there) or from a
live recording (--recording, made by zkscope locks --watch --record FILE),
decoding every lock with the same rules as zkscope locks at each change.

For each lock it lists the holders in the order they held: when each node
arrived, when it got the lock, how long it waited and held, the waiters
behind it and how long each waited, and how its tenure ended: released (its
own session deleted it), force-deleted (another session did, named), its
session closed by the client, or its session expired (the server closed it:
the client crashed, paused or was cut off), with the session's timeout and
its last write in the log. Problems: holds far longer than the lock's usual
hold, holders whose session expired, waits longer than --waited-longer-than,
force-deletes. A recording cannot tell why a node went (only that it did).

Elections are replayed too: who was Kafka's controller, the active NameNode
(HDFS HA), HBase's active master or Solr's overseer, when, and how each
tenure ended; an ephemeral node given as PATH is a plain ephemeral lock.
Candidates that own no node (Kafka's brokers, a plain lock's waiters) wait
with watches, which no log holds: they show from the moment they hold.

A recording of a database server's locks (zkscope -s postgres://… or
mysql://… locks --watch --record FILE) replays its PostgreSQL advisory or
GET_LOCK locks: who held each in the order the server granted it, who waited
behind whom, when each came and left, as the reads saw them (every
--interval). PATH is then a lock's key or path (default: every lock), and
times are given as times (such a recording has no zxids).

--at prints the queues as they were at that moment, in the format of
zkscope locks (--json: locks --json), without what only live servers know
(clients, confirmed watches).

Times: RFC 3339 (2026-11-23T03:12:00Z), a date and time or a time of day
(today) without a zone, read as UTC like the times history prints, "now",
a duration ago ("10m", "2h30m ago"), or a zxid (0x1f00000042: right after
that transaction).`

const historyExample = `  zkscope history /app/locks --txnlog /var/lib/zookeeper
  zkscope history /app/locks/deploy --txnlog ./zk-copy --since 03:00 --until 03:30
  zkscope history /app/locks/deploy --txnlog ./zk-copy --at 03:12:07 --json
  zkscope history /kafka --txnlog ./zk-copy                # every Kafka controller in turn
  zkscope locks /app/locks --watch --record locks.jsonl     # later:
  zkscope history /app/locks --recording locks.jsonl --waited-longer-than 30s
  zkscope -s postgres://app@db1/orders locks --watch --record pg.jsonl   # later:
  zkscope history --recording pg.jsonl                      # or: history 42 --recording pg.jsonl`

// historyOptions are the history command's options.
type historyOptions struct {
	txnlogDir, recording string
	since, until, at     string
	asJSON               bool
	waitedLimit          time.Duration
	heldLimit            time.Duration
	maxLeases            int
}

// NewCmdHistory is `zkscope history`.
func NewCmdHistory() *cobra.Command {
	var f historyOptions
	cmd := &cobra.Command{
		Use:               "history PATH (--txnlog DIR | --recording FILE)",
		Short:             "Who held each lock at or below PATH when, how long the others waited, and why each tenure ended",
		Long:              historyLong,
		Example:           historyExample,
		Args:              cobra.MaximumNArgs(1), // a znode path, or a database lock's key or path: checked once the source says which
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHistory(cmd.OutOrStdout(), cmd.ErrOrStderr(), args, f, time.Now())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.txnlogDir, "txnlog", "", "ZooKeeper data directory (or its version-2, or dataLogDir) whose log.* files (and snapshot, if needed) to replay")
	fl.StringVar(&f.recording, "recording", "", "a recording made by zkscope locks --watch --record FILE (ZooKeeper's or a database server's)")
	fl.StringVar(&f.since, "since", "", "report tenures from this time (or zxid) on")
	fl.StringVar(&f.until, "until", "", "stop the replay at this time (or zxid)")
	fl.StringVar(&f.at, "at", "", "print the queues as they were at this time (or right after this zxid), as zkscope locks does")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON (schema 1; with --at: the locks --json document)")
	fl.DurationVar(&f.waitedLimit, "waited-longer-than", 0, "flag waits longer than this (0: never)")
	fl.DurationVar(&f.heldLimit, "held-longer-than", time.Hour, "with --at: flag holders older than this then, as locks does (0: never)")
	fl.IntVar(&f.maxLeases, "max-leases", 0, "a semaphore's lease count (Curator does not store it; default: inferred)")
	return cmd
}

// runHistory replays the history f names at or below the path args name
// (a database recording: the lock whose key or path it is) and writes it.
func runHistory(out, errOut io.Writer, args []string, f historyOptions, now time.Time) error {
	if (f.txnlogDir == "") == (f.recording == "") {
		return cmdutil.Usagef("history needs exactly one of --txnlog DIR (a server's data directory) or --recording FILE (from locks --watch --record)")
	}
	if f.at != "" && (f.since != "" || f.until != "") {
		return cmdutil.Usagef("--at prints one moment: it does not go with --since or --until")
	}
	if f.waitedLimit < 0 || f.heldLimit < 0 || f.maxLeases < 0 {
		return cmdutil.Usagef("--waited-longer-than, --held-longer-than and --max-leases must not be negative")
	}
	var since, until, at history.Point
	for _, x := range []struct {
		flag, s string
		p       *history.Point
	}{{"--since", f.since, &since}, {"--until", f.until, &until}, {"--at", f.at, &at}} {
		var err error
		if *x.p, err = parsePoint(x.s, now); err != nil {
			return cmdutil.Usagef("%s %q: %w", x.flag, x.s, err)
		}
	}
	if f.txnlogDir != "" { // a server's log: PATH is a znode path, checked before the log is read
		if err := cmdutil.ZnodeArgs(1)(nil, args); err != nil {
			return cmdutil.Usage(err)
		}
	}
	src, servers, recipe, done, err := openHistory(f)
	if err != nil {
		return err
	}
	defer done(errOut)
	p, err := historyRoot(args, recipe, since, until, at)
	if err != nil {
		return err
	}
	stop := until
	if !at.IsZero() {
		stop = at
	}
	r, err := history.ReplayAll(src, p, stop, history.ReplayOptions{MaxLeases: f.maxLeases})
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if _, _, n := r.Span(); n == 0 {
		return errors.New("no transaction before that point in the history: give a later --at/--until, or an older log")
	}
	if !at.IsZero() {
		return writeHistoryAt(out, r, at, servers, f)
	}
	rep := r.Report(history.Options{Since: since, Until: until.Time, WaitedLongerThan: f.waitedLimit})
	if f.asJSON {
		return history.WriteJSON(printable.JSON(out), rep)
	}
	name := lockops.ShortName
	if !cmdutil.WriterIsTerminal(out) {
		name = func(s string) string { return s }
	}
	return history.WriteTable(out, rep, name)
}

// writeHistoryAt prints the queues as they were at `at`, as locks does.
func writeHistoryAt(out io.Writer, r *history.Replay, at history.Point, servers []string, f historyOptions) error {
	when := at.Time
	if when.IsZero() {
		_, last, _ := r.Span()
		when = last.Time
	}
	queues := r.Queues()
	for i := range queues {
		queues[i].ReadAt = when // ages are counted to that moment
	}
	if r.DB() == "" { // (a database's problems need its live sessions: none in a recording)
		diagnose.Diagnose(queues, diagnose.Options{HeldLongerThan: f.heldLimit, Now: when})
	}
	if f.asJSON {
		return report.WriteJSON(printable.JSON(out), servers, queues)
	}
	return report.WriteTableWith(out, queues, when, report.TableOptions{FullNames: !cmdutil.WriterIsTerminal(out)})
}

// historyRoot is what the replay keeps: the znode path args give (default
// /), or on a database recording the lock key or path given ("": every
// lock), whose moments are times only.
func historyRoot(args []string, recipe lockops.Kind, points ...history.Point) (string, error) {
	if recipe == "" {
		if err := cmdutil.ZnodeArgs(1)(nil, args); err != nil {
			return "", cmdutil.Usage(err)
		}
		return cmdutil.PathArg(args), nil
	}
	for _, pt := range points {
		if pt.Zxid != 0 {
			return "", cmdutil.Usagef("a recording of %s locks has no zxids: give --since, --until and --at as times", recipe)
		}
	}
	if len(args) == 0 {
		return "", nil
	}
	return args[0], nil
}

// openHistory opens the source f names: its events, the servers it came
// from (when known), a database recording's recipe ("": ZooKeeper's
// history) and what to do when done (close it, and say whether the log
// ended with a truncated entry).
func openHistory(f historyOptions) (history.EventSource, []string, lockops.Kind, func(io.Writer), error) {
	if f.recording != "" {
		file, err := os.Open(f.recording)
		if err != nil {
			return nil, nil, "", nil, fmt.Errorf("open recording: %w", err)
		}
		h, src, err := history.OpenRecording(file)
		if err != nil {
			file.Close()
			return nil, nil, "", nil, fmt.Errorf("%s: %w", f.recording, err)
		}
		return src, h.Servers, h.Recipe, func(io.Writer) { file.Close() }, nil
	}
	r, err := history.OpenTxnlogHistory(f.txnlogDir)
	if err != nil {
		return nil, nil, "", nil, err
	}
	done := func(errOut io.Writer) {
		if r.Note != "" {
			fmt.Fprintf(errOut, "zkscope: note: %s\n", printable.String(r.Note))
		}
		if file, off, ok := r.Truncated(); ok {
			fmt.Fprintf(errOut, "zkscope: note: %s ends with a partly written entry at offset %d (a server stopped mid-write): the history stops there\n", file, off)
		}
		r.Close()
	}
	return r, nil, "", done, nil
}

// agoPattern is a duration back from now: "10m", "-10m", "2h30m ago".
var agoPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?([0-9][0-9hms.]*)( ago)?$`) }) // compiled when first used, not at every start

// parsePoint reads a time or zxid the way history's flags take them
// ("" is the zero Point).
func parsePoint(s string, now time.Time) (history.Point, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return history.Point{}, nil
	case s == "now":
		return history.Point{Time: now}, nil
	case strings.HasPrefix(s, "0x"):
		z, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil || z == 0 {
			return history.Point{}, errors.New("not a zxid (0x and hex digits)")
		}
		return history.Point{Zxid: int64(z)}, nil
	}
	if m := agoPattern().FindStringSubmatch(s); m != nil && strings.ContainsAny(m[1], "hms") {
		d, err := time.ParseDuration(m[1])
		if err != nil {
			return history.Point{}, fmt.Errorf("not a duration: %w", err)
		}
		return history.Point{Time: now.Add(-d)}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return history.Point{Time: t}, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return history.Point{Time: t}, nil
		}
	}
	for _, layout := range []string{"15:04:05", "15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			y, mo, d := now.UTC().Date()
			return history.Point{Time: time.Date(y, mo, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)}, nil
		}
	}
	return history.Point{}, errors.New("not a time: give RFC 3339 (2026-11-23T03:12:00Z), 03:12:00 (today, UTC), 10m ago, now, or a zxid 0x…")
}
