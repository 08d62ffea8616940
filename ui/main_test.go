package ui

import (
	"testing"

	"github.com/zkscope/zkscope/dbview/dbtest"
	"github.com/zkscope/zkscope/zkview/zktest"
)

// TestMain shares one real ZooKeeper between the package's live tests (the
// golden and Update tests need none) and stops it at the end.
func TestMain(m *testing.M) { zktest.Main(dbtest.Wrap(m)) }
