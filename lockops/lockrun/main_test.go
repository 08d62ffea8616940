package lockrun

import (
	"testing"

	"github.com/zkscope/zkscope/zkview/zktest"
)

func TestMain(m *testing.M) {
	WatchdogMain() // this binary is re-executed as the watchdog of in-process lock commands
	zktest.Main(m)
}
