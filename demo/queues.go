package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/scan"
)

// PrintQueues prints every demo lock's queue every few seconds (every;
// default 2s) until ctx ends, or zkscope's own contenders fail.
func (d *Demo) PrintQueues(ctx context.Context, out io.Writer, every time.Duration) error {
	c := d.Client()
	if every <= 0 {
		every = 2 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(out, "Stopping the demo…")
			return nil
		case err := <-d.fakes:
			if err != nil {
				return fmt.Errorf("demo contenders: %w", err)
			}
		case <-t.C:
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			qs, err := scan.Scan(sctx, c, LocksRoot, scan.Options{})
			cancel()
			if err != nil && !errors.Is(err, scan.ErrTruncated) {
				if ctx.Err() != nil {
					continue
				}
				fmt.Fprintf(out, "could not read the locks: %v\n", err)
				continue
			}
			fmt.Fprintf(out, "— %s\n", time.Now().Format("15:04:05"))
			for _, q := range qs {
				fmt.Fprintf(out, "%-24s %s\n", strings.TrimPrefix(q.Path, LocksRoot+"/"), queueLine(q))
			}
		}
	}
}

// queueLine is one queue in a line: "holds: 0000000004(write) · waits: …".
func queueLine(q lockops.Queue) string {
	var hold, wait []string
	for _, p := range q.Participants {
		s := fmt.Sprintf("%s(%s)", seqOf(p), p.Mode)
		if p.State == lockops.StateHolding {
			hold = append(hold, s)
		} else {
			wait = append(wait, s)
		}
	}
	line := fmt.Sprintf("%-16s holds: %s", q.Kind, strings.Join(hold, " "))
	if len(wait) > 0 {
		line += " · waits: " + strings.Join(wait, " ")
	}
	return line
}

func seqOf(p lockops.Participant) string {
	if p.HasSeq {
		return fmt.Sprintf("%010d", p.Seq)
	}
	return p.Name
}
