package zkview

// createModesByName are the modes whose node outlives the session that
// creates it, by the names [ParseCreateMode] takes.
var createModesByName = map[string]CreateMode{
	"persistent":                ModePersistent,
	"sequential":                ModeSequential,
	"persistent-sequential":     ModeSequential,
	"container":                 ModeContainer,
	"ttl":                       ModeTTL,
	"persistent-sequential-ttl": ModePersistentSequentialTTL,
}

// CreateModeNames are the documented names of the modes whose node
// outlives the session that creates it (completion, help), in the order
// help lists them.
func CreateModeNames() []string {
	return []string{"persistent", "sequential", "container", "ttl", "persistent-sequential-ttl"}
}

// ParseCreateMode is the mode named s, one of [CreateModeNames] (or
// "persistent-sequential", the same as "sequential"); ok is false for
// any other name, the ephemeral modes' included.
func ParseCreateMode(s string) (m CreateMode, ok bool) {
	m, ok = createModesByName[s]
	return m, ok
}
