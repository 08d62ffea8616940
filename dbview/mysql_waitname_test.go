package dbview

import (
	"strings"
	"testing"
)

func TestMySQLWaitName(t *testing.T) {
	for _, tc := range []struct {
		stmt, name string
		ok         bool
	}{
		{"SELECT GET_LOCK('job:a', 100)", "job:a", true},
		{"select get_lock ( 'x y' ,10)", "x y", true},
		{"DO GET_LOCK('it''s', -1)", "it's", true},
		{"SELECT GET_LOCK(\n'multi',\n5)", "multi", true},
		{"SELECT GET_LOCK('', 5)", "", true},
		{"SELECT GET_LOCK(CONCAT('job:','a'), 100)", "", false},
		{"SELECT GET_LOCK(@name, 100)", "", false},
		{"SELECT GET_LOCK(_utf8mb4'x', 100)", "", false},
		{"SELECT GET_LOCK('a\\'b', 100)", "", false},
		{"SELECT GET_LOCK(\"dq\", 100)", "", false},
		{"SELECT GET_LOCK('a' 'b', 100)", "", false},
		{"SELECT GET_LOCK('a', 1), GET_LOCK('b', 1)", "", false},
		{"SELECT GET_LOCK('get_lock', 1)", "", false},
		{"SELECT my_get_lock('a', 1)", "", false},
		{"SELECT GET_LOCK('trunc", "", false},
		{"SELECT SLEEP(10)", "", false},
		{"", "", false},
	} {
		name, ok := mysqlWaitName(tc.stmt)
		if name != tc.name || ok != tc.ok {
			t.Errorf("mysqlWaitName(%q) = %q, %v; want %q, %v", tc.stmt, name, ok, tc.name, tc.ok)
		}
	}
}

func FuzzMySQLWaitName(f *testing.F) {
	for _, s := range []string{"SELECT GET_LOCK('job:a', 100)", "DO get_lock('it''s',1)", "GET_LOCK(", "get_lock('", "GET_LOCK(''"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stmt string) {
		name, ok := mysqlWaitName(stmt)
		if !ok {
			if name != "" {
				t.Fatalf("not ok but named %q", name)
			}
			return
		}
		if !strings.Contains(stmt, strings.ReplaceAll(name, "'", "''")) {
			t.Fatalf("name %q is not in %q", name, stmt)
		}
	})
}
