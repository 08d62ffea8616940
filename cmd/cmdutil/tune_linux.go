package cmdutil

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// widenPipe grows the pipe w writes into (when it is one) to 1 MB, the
// most an unprivileged process may ask: megabytes of JSON then go to the
// reader (jq, a script) in a few writes instead of one per 64 KB, each a
// wake-up of both processes.
func widenPipe(w io.Writer) {
	f, ok := w.(*os.File)
	if !ok {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return
	}
	unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20) // best effort: the default size works too
}
