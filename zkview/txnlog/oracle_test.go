package txnlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview/zktest"
)

// toolkitMain is ZooKeeper's own log dumper, the oracle.
const toolkitMain = "org.apache.zookeeper.server.persistence.TxnLogToolkit"

// toolkitCommand runs TxnLogToolkit on file.
func toolkitCommand(ctx context.Context, file string) (*exec.Cmd, error) {
	return zooKeeperTool(ctx, toolkitMain, "-d", file)
}

// toolOutput runs one of ZooKeeper's tools (main class, arguments) and
// returns what it printed on stdout.
func toolOutput(t *testing.T, main string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, err := zooKeeperTool(ctx, main, args...)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", main, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// zooKeeperTool runs one of the ZooKeeper install's tools: US English
// dates in UTC, the server's logging quiet.
func zooKeeperTool(ctx context.Context, main string, args ...string) (*exec.Cmd, error) {
	cp, err := zktest.ClassPath()
	if err != nil {
		return nil, err
	}
	return exec.CommandContext(ctx, "java", append([]string{"-Xshare:auto", "-XX:TieredStopAtLevel=1",
		"-Duser.timezone=UTC", "-Duser.language=en", "-Duser.country=US",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-cp", cp, main}, args...)...), nil
}

// recordStart is how each of the toolkit's records begins: its date.
var recordStart = regexp.MustCompile(`^\d+/\d+/\d+, \d+:\d+:\d+ [AP]M UTC session `)

// toolkitDump returns the toolkit's records of file (a record continues
// over the lines its ACLs break) and the count it ends with.
func toolkitDump(t *testing.T, file string) ([]string, int) {
	t.Helper()
	out := toolOutput(t, toolkitMain, "-d", file)
	var recs []string
	count := -1
	for _, line := range strings.SplitAfter(string(out), "\n") {
		switch {
		case recordStart.MatchString(line):
			recs = append(recs, line)
		case strings.HasPrefix(line, "EOF reached after "):
			count, _ = strconv.Atoi(strings.Fields(line)[3])
		case strings.HasPrefix(line, "ZooKeeper Transactional Log File"), strings.HasPrefix(line, "["), line == "":
		case len(recs) > 0:
			recs[len(recs)-1] += line
		default:
			t.Fatalf("TxnLogToolkit %s: unexpected line %q", file, line)
		}
	}
	for i := range recs {
		recs[i] = strings.TrimSuffix(recs[i], "\n")
	}
	return recs, count
}

// TestOracleToolkit reads every log file of the workload (every
// transaction type a client can cause, rolled over into several files)
// and compares each record with ZooKeeper's TxnLogToolkit's dump of the
// same file, as the toolkit prints it.
func TestOracleToolkit(t *testing.T) {
	dir := realLogs(t)
	files, _ := filepath.Glob(filepath.Join(dir, "log.*"))
	if len(files) < 2 {
		t.Fatalf("want the log rolled over to several files, got %v", files)
	}
	seen := map[Op]int{}
	for _, f := range files {
		want, count := toolkitDump(t, f)
		if count != len(want) {
			t.Fatalf("%s: toolkit says %d txns, printed %d", f, count, len(want))
		}
		var got []string
		r, err := OpenFiles(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			txn, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			seen[txn.Op]++
			for _, op := range txn.Ops {
				seen[op.Op]++
			}
			got = append(got, toolkitFormat(txn))
		}
		t.Logf("%s: %d transactions, as the toolkit reads them", filepath.Base(f), len(want))
		if len(got) != len(want) {
			t.Errorf("%s: read %d transactions, the toolkit %d", f, len(got), len(want))
		}
		for i := 0; i < min(len(got), len(want)); i++ {
			if got[i] != want[i] {
				t.Errorf("%s record %d:\n got %q\nwant %q", f, i, got[i], want[i])
			}
		}
	}
	for _, op := range []Op{OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL, OpDelete, OpDeleteContainer,
		OpSetData, OpSetACL, OpCheck, OpMulti, OpError, OpCreateSession, OpCloseSession} {
		if seen[op] == 0 {
			t.Errorf("the workload's logs hold no %s transaction", op)
		}
	}
}

// toolkitFormat prints a transaction the way TxnLogToolkit does.
func toolkitFormat(t Txn) string {
	return fmt.Sprintf("%s session 0x%x cxid 0x%x zxid 0x%x %s %s",
		t.Time.UTC().Format("1/2/06, 3:04:05 PM MST"), uint64(t.Session), uint64(int64(t.Cxid)),
		uint64(t.Zxid), t.Op, toolkitRecord(t))
}

// toolkitRecord is the toolkit's rendering of the record: its own format
// for creates, setData and multi, jute's CSV for the others.
func toolkitRecord(t Txn) string {
	switch t.Op {
	case OpCreate, OpCreate2:
		return fmt.Sprintf("%s,%s,%s,%t,%d", t.Path, javaString(t.Data), aclList(t.ACL), t.Ephemeral, t.ParentCVersion)
	case OpCreateContainer:
		return fmt.Sprintf("%s,%s,%s,%d", t.Path, javaString(t.Data), aclList(t.ACL), t.ParentCVersion)
	case OpCreateTTL:
		return fmt.Sprintf("%s,%s,%s,%d,%d", t.Path, javaString(t.Data), aclList(t.ACL), t.ParentCVersion, t.TTL)
	case OpSetData:
		return fmt.Sprintf("%s,%s,%d", t.Path, javaString(t.Data), t.Version)
	case OpMulti:
		parts := make([]string, len(t.Ops))
		for i, op := range t.Ops {
			parts[i] = op.Op.String() + ":" + javaString(encodeRecord(op))
		}
		return strings.Join(parts, ";")
	case OpDelete, OpDeleteContainer:
		return csvString(t.Path)
	case OpSetACL:
		return fmt.Sprintf("%s,%s,%d", csvString(t.Path), csvACLs(t.ACL), t.Version)
	case OpError:
		return strconv.Itoa(int(t.Err))
	case OpCreateSession:
		return strconv.Itoa(int(t.Timeout))
	case OpCloseSession:
		s := make([]string, len(t.Deletes))
		for i, p := range t.Deletes {
			s[i] = csvString(p)
		}
		return "v{" + strings.Join(s, ",") + "}"
	}
	return "?"
}

// aclList is Java's List.toString of jute ACL records (each ends in a
// newline).
func aclList(acls []zk.ACL) string {
	s := make([]string, len(acls))
	for i, a := range acls {
		s[i] = csvACL(a) + "\n"
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func csvACL(a zk.ACL) string {
	return fmt.Sprintf("%d,s{%s,%s}", a.Perms, csvString(a.Scheme), csvString(a.ID))
}

func csvACLs(acls []zk.ACL) string {
	s := make([]string, len(acls))
	for i, a := range acls {
		s[i] = "s{" + csvACL(a) + "}"
	}
	return "v{" + strings.Join(s, ",") + "}"
}

// csvString is jute's CSV rendering of a string.
func csvString(s string) string {
	r := strings.NewReplacer("\x00", "%00", "\n", "%0A", "\r", "%0D", ",", "%2C", "}", "%7D", "%", "%25")
	return "'" + r.Replace(s)
}

// javaString is new String(b, UTF_8): each byte that is not part of valid
// UTF-8 becomes U+FFFD.
func javaString(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

// encodeRecord serialises a multi's sub-operation back into jute, the bytes
// the toolkit prints: a round trip of what the reader decoded.
func encodeRecord(t Txn) []byte {
	var e recordWriter
	switch t.Op {
	case OpCreate, OpCreate2:
		e.str(t.Path).buf(t.Data).acls(t.ACL).bool(t.Ephemeral).i32(t.ParentCVersion)
	case OpCreateContainer:
		e.str(t.Path).buf(t.Data).acls(t.ACL).i32(t.ParentCVersion)
	case OpCreateTTL:
		e.str(t.Path).buf(t.Data).acls(t.ACL).i32(t.ParentCVersion).i64(t.TTL)
	case OpDelete, OpDeleteContainer:
		e.str(t.Path)
	case OpSetData:
		e.str(t.Path).buf(t.Data).i32(t.Version)
	case OpCheck:
		e.str(t.Path).i32(t.Version)
	case OpSetACL:
		e.str(t.Path).acls(t.ACL).i32(t.Version)
	case OpError:
		e.i32(t.Err)
	}
	return e.b
}

// recordWriter writes jute's binary encoding, for tests.
type recordWriter struct{ b []byte }

func (e *recordWriter) i32(v int32) *recordWriter {
	e.b = binary.BigEndian.AppendUint32(e.b, uint32(v))
	return e
}

func (e *recordWriter) i64(v int64) *recordWriter {
	e.b = binary.BigEndian.AppendUint64(e.b, uint64(v))
	return e
}

func (e *recordWriter) bool(v bool) *recordWriter {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
	return e
}

func (e *recordWriter) buf(p []byte) *recordWriter {
	if p == nil {
		return e.i32(-1)
	}
	e.i32(int32(len(p)))
	e.b = append(e.b, p...)
	return e
}

func (e *recordWriter) str(s string) *recordWriter { return e.buf([]byte(s)) }

func (e *recordWriter) acls(acls []zk.ACL) *recordWriter {
	e.i32(int32(len(acls)))
	for _, a := range acls {
		e.i32(a.Perms).str(a.Scheme).str(a.ID)
	}
	return e
}
