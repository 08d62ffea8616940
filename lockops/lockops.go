// Package lockops is the recipe model, the pure centre of the lock
// packages: the lock as read (Dir, Child) and as decoded (Queue,
// Participant), one file per library with its naming, order, holder and
// watch rules, used by decoding and taking alike (curator.go, kazoo.go,
// gozk.go, zookeeper.go, listed in library.go), the systems' single-node
// locks and elections (kafka.go, hadoop.go, hbase.go, solr.go,
// ephemeral.go; what they share in election.go), Decode and the recipes
// table (decode.go), sequence parsing (seq.go), the problem kinds and
// their severity (problems.go), the checks of one queue over plain
// values (diagnose.go, diagnose_checks.go), the Refusal (refuse.go), the
// layouts' names and the text helpers (format.go).
//
// It imports nothing of zkscope: every rule is a function of plain
// values, testable without a server. The packages around it read
// (scan), judge with the servers' view (diagnose), report, take and hold
// (take, hold), break locks (evict), run a command under a lock
// (lockrun), handle Redis locks (redislock), audit and replay history;
// they import it, never the other way round.
package lockops
