package dbview

import "testing"

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Config
		wantErr string
	}{
		{in: "postgres://app@db.example:6432/orders?sslmode=require", want: Config{Kind: KindPostgres, Host: "db.example", Port: 6432, User: "app", Database: "orders", SSLMode: "require"}},
		{in: "postgresql://127.0.0.1/x", want: Config{Kind: KindPostgres, Host: "127.0.0.1", Port: 5432, Database: "x"}},
		{in: "mysql://root@[::1]/", want: Config{Kind: KindMySQL, Host: "::1", Port: 3306, User: "root"}},
		{in: "postgres://u:secret@h/db", want: Config{Kind: KindPostgres, Host: "h", Port: 5432, User: "u", Database: "db", Password: "secret", URLPassword: true}},
		{in: "postgres://h/db?sslmode=sometimes", wantErr: `database server "postgres://h/db?sslmode=sometimes": sslmode="sometimes", want one of disable, allow, prefer, require, verify-ca, verify-full`},
		{in: "postgres://h/db?search_path=x", wantErr: `database server "postgres://h/db?search_path=x": parameter "search_path" not understood (only sslmode)`},
		{in: "postgres://u:secret@/db", wantErr: `database server "postgres://u:xxxxx@/db": no host`},
		{in: "redis://h", wantErr: `database server "redis://h": scheme "redis", want postgres://, postgresql:// or mysql://`},
	} {
		got, err := ParseURL(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("ParseURL(%q) error %v, want %s", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	if !IsDBServer(" PostgreSQL://h") || IsDBServer("redis://h") || IsDBServer("127.0.0.1:2181") {
		t.Error("IsDBServer")
	}
}
