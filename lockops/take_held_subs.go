package lockops

import "time"

// HoldSubscribers are the readers of a held lock's changes and deadlines
// (of a [*take.Held] or a [*redislock.Held]); its owner's mutex guards them.
type HoldSubscribers struct {
	subs      []chan HoldChange
	deadlines []chan time.Time
}

// SubscribeLocked is a new reader of changes (buffered; a lagging reader
// loses its oldest change, never the newest). Once the lock is lost or
// released (state) the reader gets that change and is closed, unless
// keepOpen (a change may still follow). Caller holds the owner's mutex.
func (s *HoldSubscribers) SubscribeLocked(state HoldState, reason string, keepOpen bool) <-chan HoldChange {
	ch := make(chan HoldChange, 16)
	if state == StateLost || state == StateReleased {
		ch <- HoldChange{State: state, Reason: reason, Time: time.Now()}
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
func (s *HoldSubscribers) DeadlinesLocked(state HoldState, d time.Time) <-chan time.Time {
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
func (s *HoldSubscribers) NotifyLocked(ev HoldChange) {
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

func (s *HoldSubscribers) CloseSubsLocked() {
	for _, ch := range s.subs {
		close(ch)
	}
	s.subs = nil
}

// SendDeadlineLocked hands d to every deadline reader, replacing a value
// not yet read. Caller holds the owner's mutex.
func (s *HoldSubscribers) SendDeadlineLocked(d time.Time) {
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
func (s *HoldSubscribers) CloseDeadlinesLocked() {
	for _, ch := range s.deadlines {
		close(ch)
	}
	s.deadlines = nil
}
