package demo

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/zkview"
)

// fillTree writes a small realistic tree: application config (JSON),
// service registrations (ephemeral, like a service registry's), binary and
// gzip-compressed data, and a forgotten persistent lock node.
func fillTree(c *zkview.Client) error {
	conn := c.Conn()
	acl := zk.WorldACL(zk.PermAll)
	create := func(p string, data []byte, flags int32) error {
		_, err := conn.Create(c.Abs(p), data, flags, acl)
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", p, err)
		}
		return nil
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte(`{"plan":"rolling","batches":[["web-1","web-2"],["web-3"]],"paused":false}` + "\n"))
	zw.Close()
	nodes := []struct {
		path  string
		data  string
		raw   []byte
		flags int32
	}{
		{path: "/app"},
		{path: "/app/config", data: `{"service":"billing","replicas":3,"db":{"host":"db.internal","pool":20},"features":{"invoices-v2":true,"dark-launch":false}}`},
		{path: "/app/feature-flags", data: `{"checkout.newFlow":{"enabled":true,"percent":25},"search.fuzzy":{"enabled":false}}`},
		{path: "/app/deploy-plan", raw: zipped.Bytes()},
		{path: "/app/session-key", raw: []byte{0x8f, 0x1c, 0x00, 0xa7, 0x42, 0xde, 0xad, 0xbe, 0xef, 0x10, 0x03, 0x7e, 0xff, 0x00, 0x19, 0x64}},
		{path: "/app/leader", data: "web-2.internal:8080"},
		{path: "/app/locks"},
		// The live locks' directories exist before their contenders
		// connect, so the TUI can open on one however slowly they come.
		{path: "/app/locks/curator-mutex"},
		{path: "/app/locks/curator-rwlock"},
		{path: "/app/locks/kazoo-lock"},
		{path: "/app/locks/nightly-report"},
		// A lock node nobody will ever release: persistent (a bug in a
		// hand-written lock), for the problem badges.
		{path: "/app/locks/nightly-report/_c_6f1d2a40-94b7-4e0c-8a51-3c2d9e7b1f00-lock-", data: "report-runner@batch-3", flags: zk.FlagSequence},
		{path: "/services"},
		{path: "/services/billing"},
		{path: "/services/billing/instances"},
		{path: "/services/billing/instances/web-1", data: `{"host":"10.0.3.11","port":8080,"zone":"eu-west-1a","version":"2.14.0"}`, flags: zk.FlagEphemeral},
		{path: "/services/billing/instances/web-2", data: `{"host":"10.0.3.12","port":8080,"zone":"eu-west-1b","version":"2.14.0"}`, flags: zk.FlagEphemeral},
		{path: "/services/billing/instances/web-3", data: `{"host":"10.0.3.13","port":8080,"zone":"eu-west-1c","version":"2.13.2"}`, flags: zk.FlagEphemeral},
		{path: "/services/search"},
		{path: "/services/search/instances"},
		{path: "/services/search/instances/member_", data: `{"host":"10.0.4.21","port":9200}`, flags: zk.FlagEphemeral | zk.FlagSequence},
		{path: "/services/search/instances/member_", data: `{"host":"10.0.4.22","port":9200}`, flags: zk.FlagEphemeral | zk.FlagSequence},
		{path: "/jobs"},
		{path: "/jobs/queue"},
	}
	for _, n := range nodes {
		data := n.raw
		if data == nil && n.data != "" {
			data = []byte(n.data)
		}
		if err := create(n.path, data, n.flags); err != nil {
			return err
		}
	}
	for i := range 5 {
		if err := create(fmt.Sprintf("/jobs/queue/job-%010d", i), []byte(fmt.Sprintf(`{"id":%d,"kind":"invoice-batch"}`, 4100+i)), 0); err != nil {
			return err
		}
	}
	return nil
}

// waitForContender waits until the lock directory p has a child (or
// timeout, or ctx ends).
func waitForContender(ctx context.Context, c *zkview.Client, p string, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		kids, _, ch, err := c.Conn().ChildrenW(c.Abs(p))
		if err == nil && len(kids) > 0 {
			return
		}
		if err != nil {
			ch = nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}
