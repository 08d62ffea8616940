package lockops

import (
	"fmt"
	"testing"
)

// BenchmarkDecode10k decodes a 10,000-contender lock (no I/O): Curator
// mutex, Curator read/write, kazoo Lock and kazoo read/write.
func BenchmarkDecode10k(b *testing.B) {
	const n = 10000
	mk := func(name func(i int) string) Dir {
		// In a server's order (a hash's: no order), with paths, as a scan
		// reads them.
		d := Dir{Path: "/bench"}
		for k := 0; k < n; k++ {
			i := k * 7919 % n
			d.Children = append(d.Children, Child{Name: name(i), Path: "/bench/" + name(i), Owner: int64(i + 1)})
		}
		return d
	}
	uuid := func(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i*7919%n, i) }
	cases := map[string]Dir{
		"curator-mutex": mk(func(i int) string { return fmt.Sprintf("_c_%s-lock-%010d", uuid(i), i) }),
		"curator-rw": mk(func(i int) string {
			m := "__READ__"
			if i%10 == 0 {
				m = "__WRIT__"
			}
			return fmt.Sprintf("_c_%s-%s%010d", uuid(i), m, i)
		}),
		"kazoo": mk(func(i int) string { return fmt.Sprintf("%032x__lock__%010d", i, i) }),
		"kazoo-rw": mk(func(i int) string {
			m := "__rlock__"
			if i%10 == 0 {
				m = "__lock__"
			}
			return fmt.Sprintf("%032x%s%010d", i, m, i)
		}),
	}
	for name, d := range cases {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				q := Decode(d, DecodeOptions{})
				if len(q.Participants) != n {
					b.Fatal(len(q.Participants))
				}
			}
		})
	}
}
