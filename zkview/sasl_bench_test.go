package zkview

import (
	"context"
	"testing"
	"time"

	"github.com/zkscope/zkscope/zkview/sasl"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// BenchmarkConnectSASL times a whole Connect (session handshake, SASL
// when asked, the first request answered) and Close on one server with
// DIGEST-MD5 users that does not enforce SASL, alternating a plain
// connect and a DIGEST-MD5 one in the same run:
//
//	go test ./zkview/ -run '^$' -bench ConnectSASL -benchtime 50x
func BenchmarkConnectSASL(b *testing.B) {
	s, err := zktest.DigestSASL(b.TempDir(), map[string]string{"bob": "bob-secret"})
	if err != nil {
		b.Fatal(err)
	}
	opts := s.Options
	opts.Extra = opts.Extra[:1] // the SASL provider, without enforce.auth
	srv := zktest.StartStandalone(b, opts)
	cases := []struct {
		name string
		sasl *sasl.Config
	}{
		{"plain", nil},
		{"digest-md5", &sasl.Config{Mechanism: sasl.DigestMD5, User: "bob", Password: "bob-secret"}},
	}
	var total [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, c := range cases { // alternated
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			cl, err := Connect(ctx, Config{Servers: srv.Addrs(), SASL: c.sasl})
			cancel()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := cl.Get("/"); err != nil {
				b.Fatal(err)
			}
			total[j] += time.Since(start)
			cl.Close()
		}
	}
	for j, c := range cases {
		b.ReportMetric(float64(total[j].Microseconds())/float64(b.N)/1000, c.name+"-ms/connect")
	}
}
