package sessions

import (
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/zkview"
)

// The words after a session's row: its session-level problem, or how long
// it has sent nothing or answered only pings.

// HungAfter is how long a holder answering only pings is marked in the
// view.
const HungAfter = time.Minute

// Notes are the words after each session with a session-level problem
// ([diagnose.Sessions]) among queues as the servers' answer e tells, and
// how long others have sent nothing at all (at once) or answered only
// pings (after a while), as w (the view's reads so far) tells: for
// [Model.SetNotes].
func Notes(queues []lockops.Queue, e *zkview.Ensemble, w *diagnose.PingWatch, now time.Time) map[int64]string {
	notes := map[int64]string{}
	pings := w.Since()
	for _, p := range diagnose.Sessions(queues, diagnose.SessionOptions{Ensemble: e, PingOnlySince: pings, HungAfter: HungAfter, SilentSince: w.Silent()}) {
		for _, s := range p.Sessions {
			notes[s] = string(p.Kind)
		}
	}
	for s, since := range w.NotAnswering() {
		if notes[s] == "" {
			notes[s] = "not answering: nothing sent for " + lockops.FormatAge(now.Sub(since))
		}
	}
	for s, since := range pings {
		if notes[s] == "" && now.Sub(since) >= HungAfter {
			notes[s] = "only pings for " + lockops.FormatAge(now.Sub(since))
		}
	}
	return notes
}
