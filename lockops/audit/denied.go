package audit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/zkview"
)

// DeniedError is a change the server refused for an ACL: the node whose
// ACL decides, the permission the change needs, who that ACL gives it to,
// and who zkscope is.
type DeniedError struct {
	Node    string   // the node whose ACL decides (the parent for a create or delete)
	Perm    string   // "create", "delete", "write"
	Allowed []string // "sasl:bob", "digest:ops:…", "world:anyone"
	Self    []string // zkscope's configured identities
	Err     error    // the server's answer (zk.ErrNoAuth)
}

func (e *DeniedError) Error() string {
	allowed := "no one"
	if len(e.Allowed) > 0 {
		allowed = strings.Join(e.Allowed, ", ")
	}
	self := "no identity of its own (no SASL or digest credentials)"
	if len(e.Self) > 0 {
		self = strings.Join(e.Self, ", ")
	}
	return fmt.Sprintf("not allowed: the ACL of %s gives %s only to %s, and zkscope is %s (give that identity's credentials: --sasl-user and --sasl-password-file, --principal and --keytab, or --auth-file)",
		printable.String(e.Node), e.Perm, allowed, self)
}

func (e *DeniedError) Unwrap() error { return e.Err }

// permNames are the permissions a lock action needs, named.
var permNames = map[int32]string{zk.PermCreate: "create", zk.PermDelete: "delete", zk.PermWrite: "write", zk.PermAdmin: "admin"}

// Denied explains err when the server refused a change for an ACL
// (zk.ErrNoAuth): node's ACL (node is the one whose permission perm the
// change needs) is read and the identities it gives perm to are named
// beside zkscope's own. Any other error, or an ACL zkscope cannot read
// either, is returned unchanged.
func Denied(c *zkview.Client, node string, perm int32, err error) error {
	if !errors.Is(err, zk.ErrNoAuth) {
		return err
	}
	acl, _, aerr := c.GetACL(node)
	if aerr != nil {
		return err
	}
	d := &DeniedError{Node: node, Perm: permNames[perm], Self: c.ConfiguredIdentities(), Err: err}
	for _, a := range acl {
		if a.Perms&perm != 0 {
			id := a.ID
			if a.Scheme == "digest" { // user:hash: the hash says nothing to a reader
				id, _, _ = strings.Cut(id, ":")
			}
			d.Allowed = append(d.Allowed, printable.String(a.Scheme+":"+id))
		}
	}
	for i, s := range d.Self {
		d.Self[i] = printable.String(s)
	}
	return d
}
