// Package locktest is what the lock packages' tests share: clients and
// nodes on the test servers, names as the libraries make them, systems'
// node data (Kafka, HDFS, HBase), the zkscope binary run as a command,
// real Curator and kazoo contenders, redis-py and Redis commands.
//
// Tests only: no package but a test imports it. It imports nothing of
// lockops, so every lock package's tests can use it.
package locktest
