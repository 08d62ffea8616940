package zktest

import "strings"

// ClassPath returns the Java class path of the ZooKeeper install the test
// servers run from, to run its other tools (TxnLogToolkit and the like)
// against the same version.
func ClassPath() (string, error) {
	in, err := findInstall()
	if err != nil {
		return "", err
	}
	return strings.Join(in.classPath, ":"), nil
}
