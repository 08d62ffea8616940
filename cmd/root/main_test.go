package root_test

import (
	"testing"

	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }
