package exporter

import dto "github.com/prometheus/client_model/go"

// The metrics. Their names and labels are a contract: the alert rules
// (alerts.yml) and users' dashboards read them.

// OtherLocks is the path (and recipe) label of the series summing the
// locks past --max-locks.
const OtherLocks = "(other)"

// family is one metric's name, help and type, as a scrape serves it.
type family struct {
	name, help string
	typ        dto.MetricType
}

func gaugeFamily(name, help string) *family { return &family{name, help, dto.MetricType_GAUGE} }

// The families. Label names within a series are sorted, as Prometheus's
// own registry sorts them:
// the lock families' cluster, path, recipe; zkscope_lock_problems adds
// kind and severity, zkscope_lock_holder_info node, session and client.
var (
	famSummed = gaugeFamily("zkscope_cluster_locks_summed",
		"Locks past --max-locks, served summed as path=\"(other)\".")
	famEvents = &family{"zkscope_cluster_events_applied_total",
		"Changes applied to the model: a lock whose participants or problems changed, appeared or went away.", dto.MetricType_COUNTER}
	famFollowing = gaugeFamily("zkscope_cluster_following",
		"How the cluster's model is kept up to date (value 1), as its following says (served once known): mode persistent-watches (one persistent recursive watch), watches (children watches and a full scan every interval), or polling (a read every interval); live is \"true\" for both watches.")
	famLastRead = gaugeFamily("zkscope_cluster_last_read_timestamp_seconds",
		"When the cluster's last read ended (a full scan, the locks a watch said changed, or a poll), whatever its outcome, in seconds since the epoch; absent before the first.")
	famLastOK = gaugeFamily("zkscope_cluster_last_read_success",
		"The outcome of the cluster's last read: 1 it succeeded, 0 it failed (or the connection was lost).")
	famLocks = gaugeFamily("zkscope_cluster_locks",
		"Locks followed in the cluster now (after --include/--exclude), served or summed; 0 while its reads fail.")
	famReadErrors = &family{"zkscope_cluster_read_errors_total",
		"Reads of the cluster that failed, including the connection lost and each interval it stayed lost.", dto.MetricType_COUNTER}
	famUp = gaugeFamily("zkscope_cluster_up",
		"1 when every followed path of the cluster was read and no read failed since; 0 otherwise, and its locks' series are then not served.")
	famHeld = gaugeFamily("zkscope_lock_held_seconds",
		"How long the longest-holding holder has held, where known: the exporter saw it begin to hold (turn from waiting, or appear holding after its first read). Absent when no holder's start is known.")
	famNodeAge = gaugeFamily("zkscope_lock_holder_node_age_seconds",
		"Age of the oldest holder's node (its creation on the server's clock to now). Not how long it has held: a node holds from when those before it left. Absent when no holder has a node time (Redis).")
	famHolderInfo = gaugeFamily("zkscope_lock_holder_info",
		"Who holds the lock (--holder-info only): one series per holder, value 1; node is its znode or key, session its ZooKeeper session id (hex), client its address where the servers said.")
	famHolders = gaugeFamily("zkscope_lock_holders",
		"Participants holding the lock now (a semaphore: leases held; a Redlock: 1 when one token is on a quorum of masters). path=\"(other)\": summed over the locks past --max-locks.")
	famOldestWait = gaugeFamily("zkscope_lock_oldest_wait_seconds",
		"How long the oldest waiter has waited: its node's age (ZooKeeper), else since the exporter first read it waiting. 0 when nobody waits. path=\"(other)\": the longest over the locks past --max-locks.")
	famProblems = gaugeFamily("zkscope_lock_problems",
		"Problems zkscope's diagnosis finds in the lock now, by kind (as `zkscope doctor` names them) and severity (info, warning, error); absent when none. path=\"(other)\": summed over the locks past --max-locks.")
	famWaiters = gaugeFamily("zkscope_lock_waiters",
		"Participants waiting for the lock now, in the recipe's order. path=\"(other)\": summed over the locks past --max-locks.")
	famRedisTTL = gaugeFamily("zkscope_redis_lock_ttl_seconds",
		"Redis locks: the holder's remaining time to live (a Redlock: the least over the masters holding). Absent when the key never expires (problem kind redis-no-expiry) or nobody holds.")
	famRedlockMasters = gaugeFamily("zkscope_redlock_masters_holding",
		"Redlocks: how many masters hold the token that is on a quorum (0 when no token is).")
)

// families are every metric's.
var families = []*family{famSummed, famEvents, famFollowing, famLastRead, famLastOK, famLocks, famReadErrors, famUp,
	famHeld, famNodeAge, famHolderInfo, famHolders, famOldestWait, famProblems, famWaiters, famRedisTTL, famRedlockMasters}
