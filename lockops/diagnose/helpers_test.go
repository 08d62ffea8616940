package diagnose

import (
	"strings"

	"github.com/zkscope/zkscope/lockops"
)

// kid is a child owned by session (0: persistent).
func kid(name string, session int64) lockops.Child {
	return lockops.Child{Name: name, Owner: session, Ctime: 1_700_000_000_000}
}

func dir(p string, kids ...lockops.Child) lockops.Dir { return lockops.Dir{Path: p, Children: kids} }

func problemKinds(q lockops.Queue) string {
	var ks []string
	for _, p := range q.Problems {
		ks = append(ks, string(p.Kind))
	}
	return strings.Join(ks, ",")
}
