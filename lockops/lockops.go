// Package lockops decodes the znode layouts of real distributed-lock recipes
// (Curator, kazoo, go-zookeeper, ZooKeeper's own) into ordered queues of
// holders and waiters, diagnoses what is wrong with them, and performs lock
// operations (take, release, revoke, force-delete).
//
// Decoders are pure functions over plain values; operations go through
// zkview. It must not import ui or themes.
package lockops
