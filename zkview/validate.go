package zkview

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
)

// ValidatePath checks a znode path as the servers will: absolute, no empty,
// "." or ".." element, no trailing slash (but "/"), no NUL. The error says
// what is wrong in words a user can act on (the server only says "invalid
// path").
func ValidatePath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path: znode paths start with / (the root is /)")
	case p[0] != '/':
		return fmt.Errorf("path %q is relative: znode paths start with / (did you mean /%s?)", p, p)
	case p == "/":
		return nil
	case strings.HasSuffix(p, "/"):
		return fmt.Errorf("path %q ends with /: write %s", p, strings.TrimRight(p, "/"))
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("path %q holds a NUL character", p)
	}
	for _, part := range strings.Split(p[1:], "/") {
		switch part {
		case "":
			return fmt.Errorf("path %q has an empty element (//)", p)
		case ".", "..":
			return fmt.Errorf("path %q has a %q element: znode paths have no relative parts", p, part)
		}
	}
	return nil
}

// validateMember checks one host:port of a connect string: a host, and a
// port number between 1 and 65535 (a bad one would be retried until the
// timeout instead of failing at once).
func validateMember(h string) error {
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		return fmt.Errorf("%s is not host:port", h)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%s: port %q is not a number between 1 and 65535", h, port)
	}
	if host == "" {
		return fmt.Errorf("%s has no host (write 127.0.0.1%s for this machine)", h, h)
	}
	return nil
}

// CheckConfig refuses settings that cannot work, before any connection is
// tried: a session timeout that is not positive (the handshake would fail
// with a misleading error) and chroots that are no valid path.
func CheckConfig(cfg Config) error {
	if cfg.SessionTimeout <= 0 {
		return fmt.Errorf("session timeout %s: must be positive (e.g. 10s)", cfg.SessionTimeout)
	}
	if cfg.Chroot != "" {
		if err := ValidatePath(cfg.Chroot); err != nil {
			return fmt.Errorf("chroot: %w", err)
		}
	}
	return nil
}

// CheckChroot reports a chroot that does not exist on the servers: every
// path below it would fail with a puzzling "does not exist".
func (c *Client) CheckChroot() error {
	root := c.cfg.Chroot
	if root == "" {
		return nil
	}
	ok, _, err := c.Conn().Exists(root)
	switch {
	case err != nil:
		return fmt.Errorf("check chroot %s: %w", root, Explain(err))
	case !ok:
		return fmt.Errorf("chroot %s does not exist on %s (create it, or leave %s out of the connect string)", root, strings.Join(c.cfg.Servers, ","), root)
	}
	return nil
}

// IsNoNode reports whether err says a node does not exist.
func IsNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }
