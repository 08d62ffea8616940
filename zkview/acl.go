package zkview

import (
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"
)

// aclPerms are the permission letters in zkCli's order.
var aclPerms = []struct {
	bit    int32
	letter byte
}{{zk.PermCreate, 'c'}, {zk.PermDelete, 'd'}, {zk.PermRead, 'r'}, {zk.PermWrite, 'w'}, {zk.PermAdmin, 'a'}}

// FormatPerms writes permission bits as zkCli does ("cdrwa").
func FormatPerms(perms int32) string {
	var b strings.Builder
	for _, p := range aclPerms {
		if perms&p.bit != 0 {
			b.WriteByte(p.letter)
		}
	}
	return b.String()
}

// FormatACL writes one ACL entry as [ParseACL] reads it: scheme:id:perms
// (world:anyone:cdrwa, digest:user:hash=:r, ip:10.0.0.0/8:cdrwa).
func FormatACL(a zk.ACL) string {
	return a.Scheme + ":" + a.ID + ":" + FormatPerms(a.Perms)
}

// ParseACL reads a comma-separated list of scheme:id:perms entries, as
// zkCli's setAcl takes them; the id may itself hold colons (digest).
func ParseACL(s string) ([]zk.ACL, error) {
	var acl []zk.ACL
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		scheme, rest, ok1 := strings.Cut(entry, ":")
		i := strings.LastIndexByte(rest, ':')
		if !ok1 || i < 0 || scheme == "" {
			return nil, fmt.Errorf("ACL entry %q: want scheme:id:perms, e.g. world:anyone:cdrwa or digest:user:hash:r", entry)
		}
		id, letters := rest[:i], rest[i+1:]
		perms, err := parsePerms(letters)
		if err != nil {
			return nil, fmt.Errorf("ACL entry %q: %w", entry, err)
		}
		if id == "" && scheme != "auth" {
			return nil, fmt.Errorf("ACL entry %q has no id", entry)
		}
		acl = append(acl, zk.ACL{Scheme: scheme, ID: id, Perms: perms})
	}
	if len(acl) == 0 {
		return nil, fmt.Errorf("empty ACL: give at least one scheme:id:perms entry")
	}
	return acl, nil
}

func parsePerms(letters string) (int32, error) {
	var perms int32
	for _, r := range letters {
		found := false
		for _, p := range aclPerms {
			if byte(r) == p.letter && r < 128 {
				perms |= p.bit
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown permission %q (use c, d, r, w, a)", r)
		}
	}
	if perms == 0 {
		return 0, fmt.Errorf("no permissions (use some of c, d, r, w, a)")
	}
	return perms, nil
}
