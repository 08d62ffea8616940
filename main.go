// Command zkscope is a terminal UI explorer and lock debugger for Apache
// ZooKeeper (and Redis locks). main only calls the command tree
// (cmd/root); the commands live in cmd/..., the logic in the packages
// they wire.
package main

import (
	"os"

	"github.com/zkscope/zkscope/cmd/root"
)

// version, when set at build time with -ldflags "-X main.version=...",
// overrides the module version from the build info.
var version = ""

func main() { os.Exit(root.Main(version)) }
