package lockops

import "strings"

// Under reports whether p is root or below it.
func Under(p, root string) bool {
	return root == "/" || p == root || strings.HasPrefix(p, root+"/")
}

// JoinPath joins znode paths ("/" + "a" is "/a").
func JoinPath(dir, rel string) string {
	if dir == "/" {
		return "/" + rel
	}
	return dir + "/" + rel
}
