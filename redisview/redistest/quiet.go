package redistest

import (
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
)

// Tests stop servers on purpose; go-redis's own log lines about the
// refused dials (errors reach the code under test through return values)
// would bury the test output, as zkscope's main silences them for users.
func init() { redis.SetLogger(&logging.VoidLogger{}) }
