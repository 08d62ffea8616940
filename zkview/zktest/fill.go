package zktest

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"
)

// MakePath creates p and its missing parents (persistent, open ACL).
func MakePath(tb testing.TB, conn *zk.Conn, p string) {
	tb.Helper()
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i := range parts {
		q := "/" + strings.Join(parts[:i+1], "/")
		if _, err := conn.Create(q, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			tb.Fatalf("create %s: %v", q, err)
		}
	}
}

// FillChildren creates n children of dir (and dir itself) in Multi
// batches of 1,000, several in flight: child i is named name(i) (a
// sequential flag appends the sequence), holds data(i) and has flags.
// 100,000 children take about a second and a half.
func FillChildren(tb testing.TB, conn *zk.Conn, dir string, n int, name func(i int) string, data func(i int) []byte, flags int32) {
	tb.Helper()
	MakePath(tb, conn, dir)
	reqs := make([]*zk.CreateRequest, n)
	for i := range reqs {
		reqs[i] = &zk.CreateRequest{Path: dir + "/" + name(i), Data: data(i), Acl: zk.WorldACL(zk.PermAll), Flags: flags}
	}
	if err := CreateAll(conn, reqs); err != nil {
		tb.Fatalf("create %d children of %s: %v", n, dir, err)
	}
}

// CreateAll makes reqs in multi-requests of 1,000, up to 8 in flight; the
// parents of each batch must exist before it (a level of a tree at a
// time). It returns the first failure.
func CreateAll(conn *zk.Conn, reqs []*zk.CreateRequest) error {
	const batch = 1000
	var wg sync.WaitGroup
	errs := make(chan error, len(reqs)/batch+1)
	sem := make(chan struct{}, 8)
	for i := 0; i < len(reqs); i += batch {
		ops := make([]any, 0, batch)
		for _, r := range reqs[i:min(i+batch, len(reqs))] {
			ops = append(ops, r)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if _, err := conn.Multi(ops...); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
