package dbview

import (
	"context"
	"errors"
)

// errMySQLUnsupported is the error of every MySQL operation until its
// reader exists.
var errMySQLUnsupported = errors.New("mysql:// servers are not supported yet")

// openMySQL connects c to a MySQL or MariaDB server (c.sqlDB).
func openMySQL(ctx context.Context, c *Client) error { return errMySQLUnsupported }

// readMySQL reads GET_LOCK's locks and the sessions behind them.
func readMySQL(ctx context.Context, c *Client) (*Snapshot, error) { return nil, errMySQLUnsupported }

// holdMySQL takes GET_LOCK(key) on a connection of its own.
func holdMySQL(ctx context.Context, c *Client, key string, o HoldOptions) (*Session, error) {
	return nil, errMySQLUnsupported
}

// terminateMySQL KILLs connection id while it holds cond's lock.
func terminateMySQL(ctx context.Context, c *Client, id int64, cond TerminateIf) (bool, error) {
	return false, errMySQLUnsupported
}
