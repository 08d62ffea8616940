package lockpane

import (
	"slices"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
	"github.com/zkscope/zkscope/zkview"
)

// judged is what judgeWatches found of the last queue, for the next one:
// the pair of the servers' answers it judged with, and per participant
// whether the two miss its wait (missUnknown: not asked, its wait seen).
type judged struct {
	prev, cur *zkview.Ensemble
	miss      []int8
	spare     []int8
}

// What judged.miss says of a participant.
const (
	missUnknown int8 = iota
	missNo
	missYes
)

// judgeWatches marks missing (✗, with its watch-missing problem) each
// wait that two of the servers' answers both miss and may judge
// (diagnose.JudgingPair, diagnose.WatchMissingIn): answers begun after the
// read that first showed the wait (the memo's watchSince), the later one
// ended before q was read. Anything less stays unknown (?). Unless owned,
// q's participants and problems are copied before the first change.
//
// When q is old (the queue judged last) shifted by k (k < 0: not) and
// judged with the same two answers, a participant whose node, session
// and wait are as they were keeps its verdict: only the others are asked
// (a busy lock's read judges its arrivals, not its length).
func (p *Model) judgeWatches(q *lockops.Queue, owned bool, old []lockops.Participant, k int) {
	prev, cur := diagnose.JudgingPair(p.samples, q.ReadAt)
	j := &p.judged
	if cur == nil {
		j.prev, j.cur, j.miss = nil, nil, j.miss[:0]
		return
	}
	reuse := k >= 0 && j.prev == prev && j.cur == cur && len(j.miss) == len(old)
	miss := j.spare[:0]
	copied := owned
	for i := range q.Participants {
		x := &q.Participants[i]
		v := missUnknown
		if reuse && i < len(old)-k && sameWait(x, &old[k+i]) {
			v = j.miss[k+i]
		}
		if v == missUnknown && x.WatchObserved == nil {
			v = p.missed(prev, cur, i, x)
		}
		miss = append(miss, v)
		if v != missYes || x.WatchObserved != nil {
			continue
		}
		if !copied { // the caller's slices are not ours to change
			q.Participants = slices.Clone(q.Participants)
			q.Problems = slices.Clone(q.Problems)
			x, copied = &q.Participants[i], true
		}
		missing := false
		x.WatchObserved = &missing
		q.Problems = append(q.Problems, lockops.WatchMissingProblem(x))
	}
	j.prev, j.cur, j.spare, j.miss = prev, cur, j.miss, miss
}

// missed says whether the answers prev and cur both miss the wait of x,
// the queue's participant i, whose own wait the servers did not confirm.
func (p *Model) missed(prev, cur *zkview.Ensemble, i int, x *lockops.Participant) int8 {
	if x.State != lockops.StateWaiting || x.Watches == "" {
		return missNo // (judged without its memo: most of a long queue)
	}
	if m := p.memoOf(i, x.Node); m != nil && diagnose.WatchMissingIn(prev, cur, x, m.watchSince) {
		return missYes
	}
	return missNo
}

// sameWait says whether x is y's node in the same state with the same
// wait: the same verdict of the same two answers.
func sameWait(x, y *lockops.Participant) bool {
	return x.Node == y.Node && x.Czxid == y.Czxid && x.Session == y.Session && x.State == y.State &&
		x.Watches == y.Watches && x.WatchKind == y.WatchKind && x.WatcherOnly == y.WatcherOnly
}
