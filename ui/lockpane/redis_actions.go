package lockpane

// Lock actions on Redis locks: take, release and evict. Revoke is refused:
// Redis locks have no protocol to ask a holder to let go.

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/ui/common"
)

// redisActions is what we do with Redis locks.
type redisActions struct{}

// isOurRedis reports whether x is the lock we hold or wait for.
func (p *Model) isOurRedis(x lockops.Participant) bool { return false }

// updateRedisActions routes the results of Redis lock actions.
func (p *Model) updateRedisActions(msg redisPaneMsg) tea.Cmd { return nil }

// redisNoActions says why take, release and evict do nothing on Redis.
const redisNoActions = "Taking, releasing and evicting Redis locks are not available in the TUI in this build: use `zkscope -s redis://… lock KEY` and `evict KEY` on the command line."

// redisActionKey handles a lock action key on a Redis lock.
func (p *Model) redisActionKey(msg tea.KeyPressMsg, cursorPath string, onLock bool) (tea.Cmd, bool) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Revoke):
		p.setNote(common.LevelWarn, "Redis locks cannot be revoked: no protocol asks a holder to let go. X deletes the key if it still holds the token shown.")
	case key.Matches(msg, k.Take), key.Matches(msg, k.Release), key.Matches(msg, k.ForceDelete):
		if p.readOnly {
			p.setNote(common.LevelWarn, readOnlyLockNote)
			return nil, true
		}
		p.setNote(common.LevelWarn, redisNoActions)
	default:
		return nil, false
	}
	return nil, true
}
