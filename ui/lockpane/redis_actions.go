package lockpane

// Lock actions on Redis locks, through lockops' Redis acting API: take
// (redislock.Take: SET NX PX with a random token, a Redlock on several
// masters; waiting while another client holds it), release (the held
// lock's compare-and-delete) and force-delete (redislock.Evict: only
// while the key holds the token shown). Revoke is refused: Redis locks
// have no protocol to ask a holder to let go. Their state lives here and
// outlives the key shown, as the ZooKeeper actions' does.

import (
	"context"
	"errors"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/hold"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/ui/common"
	"github.com/zkscope/zkscope/ui/dialog"
	"github.com/zkscope/zkscope/zkview"
)

// redisActions is what we do with Redis locks.
type redisActions struct {
	c       *redisview.Client
	context string // the context's name, for the audit log
	seq     uint64

	taking *redisTake
	held   *redislock.Held
	state  hold.State
	reason string
}

// redisTake is a take waiting for a Redis lock.
type redisTake struct {
	id       uint64
	key      string
	cancel   context.CancelFunc
	progress redislock.Progress
	started  time.Time
}

// holding reports whether we hold a Redis lock that is not lost.
func (a *redisActions) holding() bool {
	return a.held != nil && (a.state == hold.StateHeld || a.state == hold.StateSuspended)
}

// Messages of the Redis lock actions.
type (
	redisTakeProgressMsg struct {
		id uint64
		p  redislock.Progress
		ch <-chan redislock.Progress
	}
	redisTakeDoneMsg struct {
		id      uint64
		key     string
		held    *redislock.Held
		changes <-chan hold.Change
		err     error
	}
	redisHoldChangeMsg struct {
		held *redislock.Held
		ch   hold.Change
		ok   bool
		next <-chan hold.Change
	}
	redisReleaseDoneMsg struct {
		held *redislock.Held
		err  error
		quit bool
	}
	redisEvictPreviewMsg struct {
		id  uint64
		key string
		pv  *redislock.EvictPreview
		err error
	}
	redisEvictDoneMsg struct {
		key string
		n   int
		err error
	}
)

func (redisTakeProgressMsg) redisPaneMsg() {}
func (redisTakeDoneMsg) redisPaneMsg()     {}
func (redisHoldChangeMsg) redisPaneMsg()   {}
func (redisReleaseDoneMsg) redisPaneMsg()  {}
func (redisEvictPreviewMsg) redisPaneMsg() {}
func (redisEvictDoneMsg) redisPaneMsg()    {}

// SetRedisClient gives the pane the Redis servers its lock actions act on,
// and the context's name for the audit log.
func (p *Model) SetRedisClient(c *redisview.Client, contextName string) {
	p.redis.c, p.redis.context = c, contextName
}

// RedisHeld is the Redis lock we hold or held last (nil when none).
func (p *Model) RedisHeld() *redislock.Held { return p.redis.held }

// isOurRedis reports whether x is the lock we hold (its key, with our
// token).
func (p *Model) isOurRedis(x lockops.Participant) bool {
	h := p.redis.held
	return h != nil && p.redis.state != hold.StateReleased && string(x.Data) == h.Token
}

// redisActionKey handles a lock action key on Redis.
func (p *Model) redisActionKey(msg tea.KeyPressMsg, cursorPath string, onLock bool) (tea.Cmd, bool) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Revoke):
		p.setNote(common.LevelWarn, "Redis locks cannot be revoked: no protocol asks a holder to let go. X deletes the key if it still holds the token shown.")
	case key.Matches(msg, k.Take):
		return p.startRedisTake(cursorPath), true
	case key.Matches(msg, k.Release):
		return p.redisRelease(false), true
	case key.Matches(msg, k.ForceDelete):
		return p.startRedisEvict(cursorPath, onLock), true
	default:
		return nil, false
	}
	return nil, true
}

// mayActRedis reports whether a Redis lock action may start, saying why
// not in the pane.
func (p *Model) mayActRedis() bool {
	switch {
	case p.readOnly:
		p.setNote(common.LevelWarn, readOnlyLockNote)
	case p.redis.c == nil:
		p.setNote(common.LevelErr, "Not connected to Redis.")
	default:
		return true
	}
	return false
}

// startRedisTake opens the take dialog for the key under the cursor.
func (p *Model) startRedisTake(cursorPath string) tea.Cmd {
	a := &p.redis
	switch key := common.RedisKeyOf(cursorPath); {
	case !p.mayActRedis():
	case a.taking != nil:
		p.setNote(common.LevelWarn, "Already waiting for "+a.taking.key+": press u to stop waiting first.")
	case a.holding():
		p.setNote(common.LevelWarn, "We already hold "+a.held.Key+": press u to release it first.")
	default:
		d := dialog.NewRedisTake(p.st, p.keys, key, redislock.Recipe(a.c))
		p.open(d)
		return d.Init()
	}
	return nil
}

// beginRedisTake starts waiting for key.
func (p *Model) beginRedisTake(key string, ttl time.Duration) tea.Cmd {
	if !p.mayActRedis() {
		return nil
	}
	a := &p.redis
	a.seq++
	ctx, cancel := context.WithCancel(context.Background())
	a.taking = &redisTake{id: a.seq, key: key, cancel: cancel, started: p.clock()}
	p.note = common.Status{}
	progress := make(chan redislock.Progress, 16)
	o := redislock.TakeOptions{TTL: ttl, Context: a.context, Note: "TUI"}
	return tea.Batch(redisTakeCmd(ctx, a.c, a.seq, key, o, progress), listenRedisProgress(progress, a.seq))
}

// redisRelease lets go of our Redis lock, or stops waiting for one.
func (p *Model) redisRelease(quit bool) tea.Cmd {
	a := &p.redis
	if t := a.taking; t != nil {
		t.cancel()
		p.setNote(common.LevelInfo, "Stopping the wait for "+t.key+"…")
		if quit {
			return tea.Quit
		}
		return nil
	}
	if !a.holding() {
		if quit {
			return tea.Quit
		}
		p.setNote(common.LevelInfo, "We hold no lock. t takes the key under the cursor.")
		return nil
	}
	p.act.busy = "Releasing " + a.held.Key + "…"
	return redisReleaseCmd(a.held, quit)
}

// startRedisEvict reads who holds the key under the cursor, for the
// force-delete dialog.
func (p *Model) startRedisEvict(cursorPath string, onLock bool) tea.Cmd {
	if !p.mayActRedis() {
		return nil
	}
	key := common.RedisKeyOf(cursorPath)
	if !onLock || !p.have || cursorPath != p.path || key == "" {
		p.setNote(common.LevelWarn, "Put the cursor on a lock key first (the lock pane shows it).")
		return nil
	}
	if h := p.redis.held; h != nil && p.redis.holding() && h.Key == key {
		p.setNote(common.LevelInfo, "That is our own lock: press u to release it.")
		return nil
	}
	p.redis.seq++
	p.act.busy = "Reading " + key + "…"
	return redisEvictPreviewCmd(p.redis.c, p.redis.seq, key)
}

// handleRedisAction acts on what a Redis lock dialog asked.
func (p *Model) handleRedisAction(act dialog.Action) (tea.Cmd, bool) {
	switch a := act.(type) {
	case dialog.RedisTake:
		return p.beginRedisTake(a.Key, a.TTL), true
	case dialog.RedisEvict:
		p.act.busy = "Force-deleting " + a.Preview.Key + "…"
		return redisEvictCmd(p.redis.c, a.Preview, redislock.EvictOptions{ReadOnly: p.readOnly, Context: p.redis.context}), true
	case dialog.RedisReleaseAndQuit:
		return p.redisRelease(true), true
	}
	return nil, false
}

// redisErrText is a Redis action's failure as one line.
func redisErrText(err error) string {
	var r *lockops.Refusal
	switch {
	case errors.As(err, &r):
		return r.Error()
	case errors.Is(err, zkview.ErrReadOnly):
		return readOnlyLockNote
	}
	return common.Sentence(err.Error()) + "."
}
