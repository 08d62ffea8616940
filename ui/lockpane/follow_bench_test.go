package lockpane

import (
	"fmt"
	"testing"
	"time"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/history"
	"github.com/zkscope/zkscope/themes"
)

// BenchmarkFollowRead1k is one read of a followed 1,000-contender Curator
// lock under churn, without the server: the holder released and a new
// waiter come (the splice), the queue viewed and diagnosed as the pane's
// read does (showDecoded), then taken in (the timeline's ring, setQueueAt)
// and drawn, as BenchmarkLockPaneChurn1k (ui) does it 40 to 100 times a
// second. Its CPU per read, free of the machine's load:
//
//	go test ./ui/lockpane -run '^$' -bench FollowRead1k
func BenchmarkFollowRead1k(b *testing.B) {
	const n = 1000
	dir := lockops.Dir{Path: lockDir}
	child := func(i int) lockops.Child {
		name := fmt.Sprintf("_c_%08x-0000-4000-8000-000000000000-lock-%010d", i, i)
		// Persistent nodes, as the churn benchmark makes them: each has
		// its persistent-lock-node problem.
		return lockops.Child{Name: name, Path: lockDir + "/" + name, Data: []byte("10.0.0.9 worker"), Czxid: int64(i + 1), Ctime: lockT0.UnixMilli()}
	}
	for i := range n {
		dir.Children = append(dir.Children, child(i))
	}
	q := lockops.Decode(dir, lockops.DecodeOptions{})
	sp := lockops.NewSplicer(q, lockops.DecodeOptions{})
	if sp == nil {
		b.Fatal("no splicer")
	}
	p := testPane(themes.Dark, 100, 38)
	p.path = lockDir
	s := &lockops.Sentences{}
	at := lockT0
	clock := func() time.Time { return at }
	next := n
	for b.Loop() {
		at = at.Add(5 * time.Millisecond)
		gone := []string{dir.Children[0].Name}
		fresh := child(next)
		next++
		dir.Children = append(dir.Children[1:], fresh)
		sp.Reuse(p.spare())
		s.ReuseProblems(p.spareProblemList())
		got, ok := sp.Splice(lockops.Dir{Path: lockDir}, gone, []lockops.Child{fresh})
		if !ok {
			b.Fatal("the splice refused")
		}
		msg := lockLoadedMsg{path: lockDir}
		showDecoded(&msg, got, clock, nil, nil, s)
		p.remember(&msg.queue, history.Moment{Zxid: int64(next), Time: at})
		p.setQueueAt(msg.queue, at, false)
		_ = p.View()
	}
}
