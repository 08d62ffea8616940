// Package common holds what the TUI's components share: the key bindings
// and their help, the pane box and the overlay drawing, the status levels,
// the tick message, what is known of a node and its type, and small text
// helpers.
//
// It imports no other ui package (every component may import it) and does
// no I/O.
package common
