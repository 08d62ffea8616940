package hold

import "time"

// Subscribers are the readers of a held lock's changes and deadlines
// (of a take.Held or a redislock.Held); its owner's mutex guards them.
type Subscribers struct {
	subs      []chan Change
	deadlines []chan time.Time
}

// SubscribeLocked is a new reader of changes (buffered; a lagging reader
// loses its oldest change, never the newest). Once the lock is lost or
// released (state) the reader gets that change and is closed, unless
// keepOpen (a change may still follow). Caller holds the owner's mutex.
func (s *Subscribers) SubscribeLocked(state State, reason string, keepOpen bool) <-chan Change {
	ch := make(chan Change, 16)
	if state == StateLost || state == StateReleased {
		ch <- Change{State: state, Reason: reason, Time: time.Now()}
		if !keepOpen {
			close(ch)
			return ch
		}
	}
	s.subs = append(s.subs, ch)
	return ch
}

// DeadlinesLocked is a new reader of deadlines holding the current one, d;
// closed at once when the lock is lost or released (state). Caller holds
// the owner's mutex.
func (s *Subscribers) DeadlinesLocked(state State, d time.Time) <-chan time.Time {
	ch := make(chan time.Time, 1)
	if state == StateLost || state == StateReleased {
		close(ch)
		return ch
	}
	ch <- d
	s.deadlines = append(s.deadlines, ch)
	return ch
}

// NotifyLocked sends ev to every subscriber, dropping the oldest
// undelivered change of a lagging one. Caller holds the owner's mutex.
func (s *Subscribers) NotifyLocked(ev Change) {
	for _, ch := range s.subs {
		for {
			select {
			case ch <- ev:
			default:
				select {
				case <-ch:
				default:
				}
				continue
			}
			break
		}
	}
}

// CloseSubsLocked ends every reader of changes. Caller holds the owner's
// mutex.
func (s *Subscribers) CloseSubsLocked() {
	for _, ch := range s.subs {
		close(ch)
	}
	s.subs = nil
}

// SendDeadlineLocked hands d to every deadline reader, replacing a value
// not yet read. Caller holds the owner's mutex.
func (s *Subscribers) SendDeadlineLocked(d time.Time) {
	for _, ch := range s.deadlines {
		select {
		case <-ch:
		default:
		}
		ch <- d
	}
}

// CloseDeadlinesLocked ends every deadline reader: nothing extends the lock
// any more. Caller holds the owner's mutex.
func (s *Subscribers) CloseDeadlinesLocked() {
	for _, ch := range s.deadlines {
		close(ch)
	}
	s.deadlines = nil
}
