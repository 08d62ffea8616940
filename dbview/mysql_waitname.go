package dbview

import "strings"

// mysqlWaitName is the lock a statement waiting in GET_LOCK waits for,
// read from its text only when that is certain: the statement calls
// GET_LOCK once (the words "get_lock" appear once), its first argument is
// one single-quoted literal without backslashes (whose meaning depends on
// sql_mode) and a comma follows it. Anything else (an expression, a
// variable, an introducer such as _utf8mb4'…', a comment, two calls) is
// not guessed: ok is false.
func mysqlWaitName(stmt string) (name string, ok bool) {
	low := asciiLower(stmt) // byte for byte: offsets in low are offsets in stmt
	at := strings.Index(low, "get_lock")
	if at < 0 || strings.Count(low, "get_lock") != 1 {
		return "", false
	}
	if at > 0 && isSQLWordByte(low[at-1]) {
		return "", false // e.g. release_get_lock: not the function
	}
	rest := strings.TrimLeft(stmt[at+len("get_lock"):], " \t\r\n")
	if !strings.HasPrefix(rest, "(") {
		return "", false
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if !strings.HasPrefix(rest, "'") {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(rest); i++ {
		switch ch := rest[i]; {
		case ch == '\\':
			return "", false
		case ch == '\'' && i+1 < len(rest) && rest[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case ch == '\'':
			tail := strings.TrimLeft(rest[i+1:], " \t\r\n")
			if !strings.HasPrefix(tail, ",") {
				return "", false
			}
			return b.String(), true
		default:
			b.WriteByte(ch)
		}
	}
	return "", false // the literal does not end (a truncated statement)
}

func isSQLWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// asciiLower is s with A-Z lowered and every other byte kept.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
