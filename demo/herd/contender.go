package herd

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/zkview"
)

// eventKind is what a contender reports to its lock's driver.
type eventKind int

const (
	evNotified eventKind = iota // a watch notification arrived
	evRequest                   // it sent a write (a create)
	evRead                      // it sent a read (children, exists, getData)
	evHolding                   // it holds the lock
	evWaiting                   // it waits again, its watch set
	evReleased                  // it released the lock
	evFailed                    // a request failed (err)
)

// event is one report of contender who.
type event struct {
	who  int
	kind eventKind
	at   time.Time
	err  error
}

// command is what the driver tells a contender.
type command int

const (
	cmdJoin command = iota
	cmdRelease
)

// contender is one session taking one lock in its style, on a goroutine of
// its own; it reports every notification and request it makes.
type contender struct {
	id      int
	style   Style
	dir     string // the lock's directory
	c       *zkview.Client
	conn    *zk.Conn
	session int64
	node    string // the node it owns ("" while it owns none)
	cmds    chan command
	events  chan<- event
}

func (ct *contender) report(k eventKind, err error) {
	ct.events <- event{who: ct.id, kind: k, at: time.Now(), err: err}
}

// write and read count one request before it is sent.
func (ct *contender) write() { ct.report(evRequest, nil) }
func (ct *contender) read()  { ct.report(evRead, nil) }

// run serves commands and watch notifications until ctx ends.
func (ct *contender) run(ctx context.Context) {
	var watch <-chan zk.Event
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-watch:
			watch = nil
			if ev.Type == zk.EventNotWatching || ev.Err != nil {
				ct.report(evFailed, fmt.Errorf("contender %d: its watch ended: %v", ct.id, ev.Err))
				continue
			}
			ct.report(evNotified, nil)
			watch = ct.settle(ct.wake)
		case cmd := <-ct.cmds:
			switch cmd {
			case cmdJoin:
				watch = ct.settle(ct.join)
			case cmdRelease:
				ct.release()
			}
		}
	}
}

// settle runs step (a join or a wake-up) and reports where it ended:
// holding, waiting on a watch, or failed.
func (ct *contender) settle(step func() (<-chan zk.Event, bool, error)) <-chan zk.Event {
	watch, holding, err := step()
	switch {
	case err != nil:
		ct.report(evFailed, fmt.Errorf("contender %d: %w", ct.id, err))
	case holding:
		ct.report(evHolding, nil)
	default:
		ct.report(evWaiting, nil)
	}
	return watch
}

// join queues: the naive contender tries to create the lock node; the
// chain's creates its sequential node and finds its place.
func (ct *contender) join() (<-chan zk.Event, bool, error) {
	if ct.style == Naive {
		return ct.tryNaive()
	}
	data := []byte(fmt.Sprintf("zkscope herd demo, chain contender %d", ct.id))
	ct.write()
	name, err := ct.conn.Create(join(ct.dir, curatorPrefix()), data, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		return nil, false, fmt.Errorf("create in %s: %w", ct.dir, err)
	}
	ct.node = name
	return ct.findPlace()
}

// wake is what a waiter does on a notification: the naive one re-reads
// the directory and tries again; the chain's reads its place again.
func (ct *contender) wake() (<-chan zk.Event, bool, error) {
	if ct.style == Naive {
		ct.read()
		if _, _, err := ct.conn.Children(ct.dir); err != nil {
			return nil, false, fmt.Errorf("list %s: %w", ct.dir, err)
		}
		return ct.tryNaive()
	}
	return ct.findPlace()
}

// tryNaive creates the lock node; when it exists, sets an exists watch on
// it (and tries again if it went meanwhile).
func (ct *contender) tryNaive() (<-chan zk.Event, bool, error) {
	lock := join(ct.dir, "lock")
	data := []byte(fmt.Sprintf("zkscope herd demo, naive contender %d", ct.id))
	for {
		ct.write()
		_, err := ct.conn.Create(lock, data, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		if err == nil {
			ct.node = lock
			return nil, true, nil
		}
		if !errors.Is(err, zk.ErrNodeExists) {
			return nil, false, fmt.Errorf("create %s: %w", lock, err)
		}
		ct.read()
		ok, _, ch, err := ct.conn.ExistsW(lock)
		if err != nil {
			return nil, false, fmt.Errorf("exists %s: %w", lock, err)
		}
		if ok {
			return ch, false, nil
		}
		go func() { <-ch }() // set on a missing node: fires on the next create
	}
}

// findPlace reads the chain's directory and does what the recipe says
// (lockops.Decode, Curator's order): hold when first, else getData-watch
// the predecessor (read again when it went meanwhile).
func (ct *contender) findPlace() (<-chan zk.Event, bool, error) {
	for {
		ct.read()
		names, _, err := ct.conn.Children(ct.dir)
		if err != nil {
			return nil, false, fmt.Errorf("list %s: %w", ct.dir, err)
		}
		d := lockops.Dir{Path: ct.dir}
		for _, n := range names {
			d.Children = append(d.Children, lockops.Child{Name: n})
		}
		q := lockops.Decode(d, lockops.DecodeOptions{Kind: lockops.KindCuratorMutex})
		i := lockops.ParticipantIndex(q, ct.node)
		if i < 0 {
			return nil, false, fmt.Errorf("%s is not in %s", path.Base(ct.node), ct.dir)
		}
		p := q.Participants[i]
		if p.State == lockops.StateHolding {
			return nil, true, nil
		}
		ct.read()
		_, _, ch, err := ct.conn.GetW(p.Watches)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, false, fmt.Errorf("get %s: %w", p.Watches, err)
		}
		return ch, false, nil
	}
}

// release deletes the node it holds by.
func (ct *contender) release() {
	node := ct.node
	ct.node = ""
	if err := ct.conn.Delete(node, -1); err != nil {
		ct.report(evFailed, fmt.Errorf("contender %d: delete %s: %w", ct.id, node, err))
		return
	}
	ct.report(evReleased, nil)
}
