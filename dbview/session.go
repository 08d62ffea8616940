package dbview

import (
	"context"
	"sync"
	"time"
)

// Session is a lock held on a connection of its own. It stays held until
// Release, or until the connection breaks: then Lost is closed and Err
// says why. A lost lock stays lost.
type Session struct {
	Key          string
	Database     string    // PostgreSQL: the database the lock belongs to
	ID           int64     // the server session holding it (pid, connection id)
	BackendStart time.Time // when that session started, when known

	lost    chan struct{}
	mu      sync.Mutex
	err     error
	release func(ctx context.Context) error
	once    sync.Once
	relErr  error
}

func newSession() *Session { return &Session{lost: make(chan struct{})} }

// Lost is closed when the connection holding the lock broke.
func (s *Session) Lost() <-chan struct{} { return s.lost }

// Err is why the lock was lost, nil while it is held.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Session) markLost(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
		close(s.lost)
	}
}

// Release gives the lock back and closes its connection; an error when it
// was lost before (or the server said it was not held).
func (s *Session) Release(ctx context.Context) error {
	s.once.Do(func() { s.relErr = s.release(ctx) })
	return s.relErr
}
