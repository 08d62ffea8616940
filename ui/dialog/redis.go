package dialog

// The Redis lock dialogs: take a key (SET NX PX, a Redlock on several
// masters) with a TTL, force-delete a key while it holds the token shown
// (the token's end typed to confirm), and quit while holding one.

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/redislock"
	"github.com/zkscope/zkscope/printable"
	"github.com/zkscope/zkscope/themes"
	"github.com/zkscope/zkscope/ui/common"
)

// The Redis lock dialogs' actions; the lock pane acts on them.
type (
	// RedisTake takes Key with TTL (extended at a third of it while held).
	RedisTake struct {
		Key string
		TTL time.Duration
	}
	// RedisEvict deletes Preview's key where it still holds its token.
	RedisEvict struct{ Preview *redislock.EvictPreview }
	// RedisReleaseAndQuit releases the Redis lock we hold, then quits.
	RedisReleaseAndQuit struct{}
)

// RedisTakeForm asks for the key and TTL of a Redis lock to take.
type RedisTakeForm struct {
	lockBase
	recipe lockops.Kind
	key    prefill            // the key the dialog opened on
	fields [2]textinput.Model // the key, the TTL
	focus  int
}

// NewRedisTake asks about taking key (editable: another key, or a new
// one) as recipe (redis.setnx, or redlock over several masters).
func NewRedisTake(st *themes.Styles, keys common.LockKeyMap, key string, recipe lockops.Kind) *RedisTakeForm {
	pre := newPrefill(key)
	k := newLockInput("key")
	k.SetValue(pre.shown)
	ttl := newLockInput("TTL")
	ttl.SetValue(redislock.DefaultTTL.String())
	ttl.SetWidth(12)
	return &RedisTakeForm{lockBase: lockBase{st: st, keys: keys}, recipe: recipe, key: pre, fields: [2]textinput.Model{k, ttl}, focus: 1}
}

// ID implements [Dialog].
func (d *RedisTakeForm) ID() string { return "redis-take" }

// Init focuses the TTL.
func (d *RedisTakeForm) Init() tea.Cmd { return d.fields[d.focus].Focus() }

// Update implements [Dialog]: tab moves between the key and the TTL, ⏎
// takes, esc cancels.
func (d *RedisTakeForm) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case key.Matches(k, d.keys.Cancel):
		return d.close(LockCancelled{Note: "Cancelled; nothing was taken."}), nil
	case key.Matches(k, d.keys.NextField, d.keys.PrevField):
		d.fields[d.focus].Blur()
		d.focus = 1 - d.focus
		return nil, d.fields[d.focus].Focus()
	case key.Matches(k, d.keys.Confirm):
		name := strings.TrimSpace(d.key.value(d.fields[0].Value()))
		ttl, err := time.ParseDuration(strings.TrimSpace(d.fields[1].Value()))
		switch {
		case name == "":
			d.err = "Name the key to take."
		case err != nil || ttl < 100*time.Millisecond:
			d.err = "The TTL is a duration of at least 100ms, such as 30s or 2m."
		default:
			return d.close(RedisTake{Key: name, TTL: ttl}), nil
		}
		return nil, nil
	}
	var cmd tea.Cmd
	d.fields[d.focus], cmd = d.fields[d.focus].Update(msg)
	d.err = ""
	return nil, cmd
}

// View implements [Dialog].
func (d *RedisTakeForm) View(w int) string {
	st, inner := d.st, w-4
	how := "SET NX PX with a random token"
	if d.recipe == lockops.KindRedlock {
		how = "a Redlock: SET NX PX on every master, held on a majority"
	}
	d.fields[0].SetWidth(max(inner-6, 10)) // "key: " and the cursor take 6
	body := []string{st.Prompt.Render("key: ") + d.fields[0].View(), d.field("recipe", string(d.recipe)+": "+how), ""}
	body = append(body, wrapped(st.Muted, "While it is held zkscope extends it at a third of the TTL; if an extension fails until the deadline the lock is LOST and stays lost. While another client holds it, zkscope waits and tries again (u stops).", inner)...)
	body = append(body, "", st.Prompt.Render("TTL: ")+d.fields[1].View(), "", d.hint("⏎", "take")+"   "+d.hint("tab", "next field")+"   "+d.hint("esc", "cancel"))
	return d.lockFrame(w, "Take Redis lock", body, 4)
}

// RedisEvictForm shows who holds a Redis lock key and asks for the end of
// its token, typed, before deleting it where it still holds that token.
type RedisEvictForm struct {
	lockBase
	pv *redislock.EvictPreview
	in textinput.Model
}

// NewRedisEvict asks about force-deleting pv's key.
func NewRedisEvict(st *themes.Styles, keys common.LockKeyMap, pv *redislock.EvictPreview) *RedisEvictForm {
	in := newLockInput("end of the token")
	in.SetWidth(16)
	return &RedisEvictForm{lockBase: lockBase{st: st, keys: keys}, pv: pv, in: in}
}

// ID implements [Dialog].
func (d *RedisEvictForm) ID() string { return "redis-evict" }

// Init focuses the confirmation.
func (d *RedisEvictForm) Init() tea.Cmd { return d.in.Focus() }

// Update implements [Dialog]: ⏎ deletes once the token's end is typed
// exactly, esc cancels.
func (d *RedisEvictForm) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case key.Matches(k, d.keys.Cancel):
		return d.close(LockCancelled{Note: "Cancelled; nothing was deleted."}), nil
	case key.Matches(k, d.keys.Confirm):
		if want := d.pv.ConfirmSuffix(); strings.TrimSpace(d.in.Value()) != want {
			d.err = "Type " + want + " (the token's end) exactly to confirm."
			return nil, nil
		}
		return d.close(RedisEvict{Preview: d.pv}), nil
	}
	var cmd tea.Cmd
	d.in, cmd = d.in.Update(msg)
	d.err = ""
	return nil, cmd
}

// View implements [Dialog].
func (d *RedisEvictForm) View(w int) string {
	st, inner, pv := d.st, w-4, d.pv
	ttl := "no expiry"
	if pv.TTL != lockops.NoExpiry {
		ttl = common.FormatAge(pv.TTL) + " left when read"
	}
	body := []string{
		d.field("key", printable.String(pv.Key)),
		d.field("token", common.DataSummary([]byte(pv.Token))),
		d.field("ttl", ttl),
		d.field("holding", printable.String(strings.Join(pv.Holding, ", "))),
	}
	for _, o := range pv.Others {
		body = append(body, d.field("", printable.String(o)))
	}
	if !pv.Majority {
		body = append(body, "", st.Warning.Render(fmt.Sprintf("⚠ This token is on %d of %d servers: no majority holds it.", len(pv.Holding), len(pv.Holding)+len(pv.Others))))
	}
	body = append(body, "")
	body = append(body, wrapped(st.Warning, "⚠ Its holder is not told: if it still runs, it goes on as if it held the lock while another client takes it.", inner)...)
	body = append(body, "",
		st.Prompt.Render("Type "+printable.String(pv.ConfirmSuffix())+" to confirm: ")+d.in.View(),
		"", d.hint("⏎", "delete (only while it holds this token)")+"   "+d.hint("esc", "cancel"))
	return d.lockFrame(w, "Force-delete Redis lock", body, 4)
}

// RedisQuitForm asks, on quit, whether to release the Redis lock we hold.
type RedisQuitForm struct {
	lockBase
	key string
}

// NewRedisQuit asks about quitting while holding key.
func NewRedisQuit(st *themes.Styles, keys common.LockKeyMap, key string) *RedisQuitForm {
	return &RedisQuitForm{lockBase: lockBase{st: st, keys: keys}, key: key}
}

// ID implements [Dialog].
func (d *RedisQuitForm) ID() string { return "redis-quit" }

// Update implements [Dialog]: ⏎ releases and quits, esc stays.
func (d *RedisQuitForm) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case key.Matches(k, d.keys.Cancel):
		return d.close(LockCancelled{Note: "Still holding " + d.key + "."}), nil
	case key.Matches(k, d.keys.Confirm):
		return d.close(RedisReleaseAndQuit{}), nil
	}
	return nil, nil
}

// View implements [Dialog].
func (d *RedisQuitForm) View(w int) string {
	body := wrapped(d.st.Warning, "We hold the Redis lock "+d.key+". Quitting releases it (compare-and-delete of our token).", w-4)
	body = append(body, "", d.hint("⏎", "release and quit")+"   "+d.hint("esc", "stay"))
	return d.lockFrame(w, "Quit while holding a lock?", body, 2)
}
