package lockops

// ProblemHolderIdle: a MySQL/MariaDB GET_LOCK holder whose connection has
// been idle (Sleep) for longer than the bound with no transaction open:
// its client holds the lock without using the connection, which is
// either a lock kept across work done elsewhere or a stuck client. (With
// a transaction open it is ProblemIdleInTransaction.)
const ProblemHolderIdle ProblemKind = "holder-idle"
