package txnlog

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// formatterDump runs ZooKeeper's SnapshotFormatter -d on file and returns
// its node blocks (sorted: it walks children in hash order) and the lines
// of its session table.
func formatterDump(t *testing.T, file string) (nodes, sessions []string) {
	t.Helper()
	text := string(toolOutput(t, "org.apache.zookeeper.server.SnapshotFormatter", "-d", file))
	head, tail, ok := strings.Cut(text, "Session Details (sid, timeout, ephemeralCount):\n")
	if !ok {
		t.Fatalf("SnapshotFormatter %s: no session table in\n%s", file, text)
	}
	blocks := strings.Split(head, "----\n")
	for _, block := range blocks[1:] {
		if block != "" {
			nodes = append(nodes, block)
		}
	}
	if !strings.HasPrefix(blocks[0], "ZNode Details") {
		t.Fatalf("SnapshotFormatter %s: %q before the nodes", file, blocks[0])
	}
	for _, line := range strings.Split(tail, "\n") {
		if line == "----" {
			break
		}
		sessions = append(sessions, line)
	}
	slices.Sort(nodes)
	slices.Sort(sessions)
	return nodes, sessions
}

// formatterNode prints a node the way SnapshotFormatter -d does.
func formatterNode(n Node) string {
	date := func(ms int64) string {
		return time.UnixMilli(ms).UTC().Format("Mon Jan 02 15:04:05 MST 2006")
	}
	st := n.Stat
	return fmt.Sprintf("%s\n  cZxid = 0x%014x\n  ctime = %s\n  mZxid = 0x%014x\n  mtime = %s\n  pZxid = 0x%014x\n"+
		"  cversion = %d\n  dataVersion = %d\n  aclVersion = %d\n  ephemeralOwner = 0x%014x\n  data = %s\n",
		n.Path, st.Czxid, date(st.Ctime), st.Mzxid, date(st.Mtime), st.Pzxid,
		st.Cversion, st.Version, st.Aversion, uint64(st.EphemeralOwner), base64.StdEncoding.EncodeToString(n.Data))
}

// TestOracleSnapshotFormatter reads every snapshot the workload's server
// wrote and compares each node (path, stat, data) and each session
// (timeout, ephemerals) with ZooKeeper's SnapshotFormatter.
func TestOracleSnapshotFormatter(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(realLogs(t), "snapshot.*"))
	if len(files) < 2 {
		t.Fatalf("want several snapshots, got %v", files)
	}
	for _, f := range files {
		wantNodes, wantSessions := formatterDump(t, f)
		snap, err := ReadSnapshot(f)
		if err != nil {
			t.Fatal(err)
		}
		var gotNodes, gotSessions []string
		owned := map[int64]int{}
		for _, n := range snap.Nodes {
			gotNodes = append(gotNodes, formatterNode(n))
			owned[n.Stat.EphemeralOwner]++
		}
		for _, s := range snap.Sessions {
			gotSessions = append(gotSessions, fmt.Sprintf("0x%x, %d, %d", s.ID, s.Timeout, owned[s.ID]))
		}
		slices.Sort(gotNodes)
		slices.Sort(gotSessions)
		if len(gotNodes) != len(wantNodes) {
			t.Errorf("%s: %d nodes, the formatter %d", filepath.Base(f), len(gotNodes), len(wantNodes))
		}
		for i := 0; i < min(len(gotNodes), len(wantNodes)); i++ {
			if gotNodes[i] != wantNodes[i] {
				t.Errorf("%s node %d:\n got %q\nwant %q", filepath.Base(f), i, gotNodes[i], wantNodes[i])
			}
		}
		if !slices.Equal(gotSessions, wantSessions) {
			t.Errorf("%s sessions:\n got %q\nwant %q", filepath.Base(f), gotSessions, wantSessions)
		}
		t.Logf("%s: %d nodes, %d sessions", filepath.Base(f), len(gotNodes), len(gotSessions))
	}
}

// TestSnapshotTree checks what the oracle does not print: ACLs, child
// counts, the latest snapshot, and a damaged file's checksum.
func TestSnapshotTree(t *testing.T) {
	dir := realLogs(t)
	latest, err := LatestSnapshot(filepath.Dir(dir), math.MaxInt64)
	if err != nil || latest == "" {
		t.Fatalf("LatestSnapshot: %q, %v", latest, err)
	}
	snap, err := ReadSnapshot(latest)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]Node{}
	for _, n := range snap.Nodes {
		byPath[n.Path] = n
	}
	bin := byPath["/w/bin"]
	if len(bin.ACL) != 2 || bin.ACL[0].Scheme != "digest" || bin.ACL[1].ID != "anyone" || bin.ACL[1].Perms != 1 {
		t.Errorf("/w/bin's ACL = %+v", bin.ACL)
	}
	if n := byPath["/w/locks"]; !n.Container() || n.Owner() != 0 {
		t.Errorf("/w/locks (Curator's container): container %t, owner %#x", n.Container(), n.Owner())
	}
	if n := byPath["/w/e"]; n.Container() || n.Owner() == 0 || n.Owner() != n.Stat.EphemeralOwner {
		t.Errorf("/w/e (ephemeral): container %t, owner %#x", n.Container(), n.Owner())
	}
	ttl := Node{Stat: zk.Stat{EphemeralOwner: ttlMask | 300}}
	if v, ok := ttl.TTL(); !ok || v != 300 || ttl.Owner() != 0 || ttl.Container() {
		t.Errorf("a TTL node's mark read as TTL %d %t, owner %#x", v, ok, ttl.Owner())
	}
	if n := byPath["/zookeeper"].Stat.NumChildren; n != 2 {
		t.Errorf("/zookeeper has %d children, want 2", n)
	}
	if first, _ := LatestSnapshot(dir, 0); filepath.Base(first) != "snapshot.0" {
		t.Errorf("LatestSnapshot before zxid 0 = %q", first)
	}
	b, _ := os.ReadFile(latest)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(b)
	w.Close()
	zipped := filepath.Join(t.TempDir(), filepath.Base(latest)+".gz")
	os.WriteFile(zipped, gz.Bytes(), 0o644)
	if z, err := ReadSnapshot(zipped); err != nil || len(z.Nodes) != len(snap.Nodes) || z.Zxid != snap.Zxid {
		t.Errorf("gzipped snapshot: %v", err)
	}
	b[len(b)/2] ^= 0x20
	bad := filepath.Join(t.TempDir(), filepath.Base(latest))
	os.WriteFile(bad, b, 0o644)
	if _, err := ReadSnapshot(bad); err == nil {
		t.Error("a damaged snapshot read without error")
	}
	r, err := OpenSnapshot(latest)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
	}
}
