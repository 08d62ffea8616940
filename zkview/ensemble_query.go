package zkview

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// abs maps the caller's path to the server's.
func (e *Ensemble) abs(p string) string {
	if e.Chroot == "" {
		return p
	}
	if p == "/" || p == "" {
		return e.Chroot
	}
	return e.Chroot + p
}

// rel maps a server path to the caller's view; ok is false outside the chroot.
func (e *Ensemble) rel(p string) (string, bool) {
	if e.Chroot == "" {
		return p, true
	}
	if p == e.Chroot {
		return "/", true
	}
	if r, ok := strings.CutPrefix(p, e.Chroot); ok && strings.HasPrefix(r, "/") {
		return r, true
	}
	return "", false
}

// ClientOf returns the client address (ip:port) of a session, from the
// members' connection lists; ok is false when no member lists it.
func (e *Ensemble) ClientOf(sessionID int64) (addr string, ok bool) {
	if e == nil {
		return "", false
	}
	for _, m := range e.Members {
		if a, found := m.Clients[sessionID]; found {
			return a, true
		}
	}
	return "", false
}

// MemberOf returns the client address of the member sessionID is connected
// to; ok is false when no member lists it.
func (e *Ensemble) MemberOf(sessionID int64) (member string, ok bool) {
	if e == nil {
		return "", false
	}
	for _, m := range e.Members {
		if _, found := m.Clients[sessionID]; found {
			return m.Addr, true
		}
	}
	return "", false
}

// WatchObserved reports whether any member lists sessionID as watching the
// data of path (the caller's view, chroot applied); known is false when it
// is not observed, the member the session is connected to did not list its
// watches, and some member could not be asked or refused to say.
// getChildren watches are never listed by the servers (see [Ensemble]).
func (e *Ensemble) WatchObserved(sessionID int64, path string) (observed, known bool) {
	if e == nil || len(e.Members) == 0 {
		return false, false
	}
	sp := e.abs(path)
	known = true
	home := "" // the member the session is connected to: its watches live there
	for _, m := range e.Members {
		if slices.Contains(m.Watches[sp], sessionID) {
			return true, true
		}
		if !m.WatchesKnown {
			known = false
		}
		if _, ok := m.Clients[sessionID]; ok && m.WatchesKnown {
			home = m.Addr
		}
	}
	// A watch is kept by the member the session is connected to: when that
	// member answered, a missing watch is known missing even if another
	// member (down, say, during an incident) could not be asked.
	return false, known || home != ""
}

// ReadZxid is a zxid no smaller than that of anything the asking client
// read before e was asked: what its own member (the one listing Self
// among its clients) had applied when asked, or, when that member is
// not known, the most any member had, if every member said. ok is false
// when it cannot be known.
func (e *Ensemble) ReadZxid() (zxid int64, ok bool) {
	if e == nil || len(e.Members) == 0 {
		return 0, false
	}
	for _, m := range e.Members {
		if _, mine := m.Clients[e.Self]; mine && e.Self != 0 {
			return m.WatchZxid, m.WatchZxid != 0
		}
	}
	for _, m := range e.Members {
		if m.WatchZxid == 0 {
			return 0, false
		}
		zxid = max(zxid, m.WatchZxid)
	}
	return zxid, true
}

// WatchMissing reports whether the servers show sessionID not watching
// the data of path (the caller's view) for certain: no member lists it,
// and the member the session is connected to (where its watches live)
// listed its watches after applying zxid, so a watch set by then would
// be in its list. False when unknown (the session connected nowhere, that
// member's watches or zxid not known, or it had not applied zxid).
func (e *Ensemble) WatchMissing(sessionID int64, path string, zxid int64) bool {
	if e == nil {
		return false
	}
	sp := e.abs(path)
	var home *Member
	for i := range e.Members {
		m := &e.Members[i]
		if slices.Contains(m.Watches[sp], sessionID) {
			return false
		}
		if _, ok := m.Clients[sessionID]; ok {
			home = m
		}
	}
	return home != nil && home.WatchesKnown && home.WatchZxid != 0 && home.WatchZxid >= zxid
}

// Watchers lists the sessions any member lists as watching the data of path
// (caller's view), without duplicates, the asking client's own (Self)
// aside.
func (e *Ensemble) Watchers(path string) []int64 {
	if e == nil {
		return nil
	}
	sp := e.abs(path)
	var out []int64
	for _, m := range e.Members {
		for _, id := range m.Watches[sp] {
			if id != e.Self && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// Ephemerals lists the ephemeral nodes of sessionID in the caller's view
// (nodes outside the chroot are left out); ok is false when no member
// reported the ephemeral lists.
func (e *Ensemble) Ephemerals(sessionID int64) (paths []string, ok bool) {
	if e == nil {
		return nil, false
	}
	for _, m := range e.Members {
		if m.Via["dump"] == "" {
			continue
		}
		ok = true
		for _, p := range m.Ephemerals[sessionID] {
			if r, in := e.rel(p); in && !slices.Contains(paths, r) {
				paths = append(paths, r)
			}
		}
	}
	return paths, ok
}

// Sessions returns every live session any member reported (full session
// lists, connections and ephemeral owners); complete is true when at least
// one member gave its full session list.
func (e *Ensemble) Sessions() (ids map[int64]bool, complete bool) {
	ids = map[int64]bool{}
	if e == nil {
		return ids, false
	}
	for _, m := range e.Members {
		for _, id := range m.Sessions {
			ids[id] = true
		}
		for id := range m.Clients {
			ids[id] = true
		}
		for id := range m.Ephemerals {
			ids[id] = true
		}
		if m.SessionsKnown {
			complete = true
		}
	}
	return ids, complete
}

// SessionAlive says whether sessionID is alive anywhere in the ensemble;
// known is false when it was not seen and no member gave a full session list.
func (e *Ensemble) SessionAlive(sessionID int64) (alive, known bool) {
	ids, complete := e.Sessions()
	if ids[sessionID] {
		return true, true
	}
	return false, complete
}

// Leader returns the member that reported itself leader (or standalone),
// or nil.
func (e *Ensemble) Leader() *Member {
	if e == nil {
		return nil
	}
	for i := range e.Members {
		if m := e.Members[i].Mode; m == "leader" || m == "standalone" {
			return &e.Members[i]
		}
	}
	return nil
}

// Err joins every member's failures (nil when every member answered every
// question); refusals match [ErrWordRefused].
func (e *Ensemble) Err() error {
	if e == nil {
		return nil
	}
	var errs []error
	for _, m := range e.Members {
		if m.Err != nil {
			errs = append(errs, fmt.Errorf("member %s: %w", m.Addr, m.Err))
		}
		for _, w := range coreWords {
			if err := m.Errs[w]; err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
