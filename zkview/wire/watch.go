package wire

import (
	"fmt"

	"github.com/zkscope/zkscope/zkview/jute"
)

// Op codes of persistent watches (ZooKeeper 3.6+).
const (
	OpRemoveWatches int32 = 18
	OpSetWatches2   int32 = 105
	OpAddWatch      int32 = 106
)

// AddWatch modes (AddWatchMode): a persistent watch on one node (its data
// and children, never removed by firing) or on the node and every node
// below it (creations, deletions and data changes; no children events).
const (
	ModePersistent          int32 = 0
	ModePersistentRecursive int32 = 1
)

// WatcherTypeAny is removeWatches' type removing every watch of the
// connection on the path (Watcher.WatcherType: children 1, data 2, any 3).
const WatcherTypeAny int32 = 3

// CodeNoWatcher is the server's answer to removeWatches on a path the
// connection watches nothing on.
const CodeNoWatcher int32 = -121

// Event types (Watcher.Event.EventType) carried by a notification.
const (
	EventNone                   int32 = -1
	EventNodeCreated            int32 = 1
	EventNodeDeleted            int32 = 2
	EventNodeDataChanged        int32 = 3
	EventNodeChildrenChanged    int32 = 4
	EventDataWatchRemoved       int32 = 5
	EventChildWatchRemoved      int32 = 6
	EventPersistentWatchRemoved int32 = 7
)

// AddWatchRequest is a framed addWatch request: path and mode.
func AddWatchRequest(xid int32, path string, mode int32) []byte {
	w := RequestHeader(xid, OpAddWatch)
	w.String(path)
	w.Int32(mode)
	return Frame(w.B)
}

// RemoveWatchesRequest is a framed removeWatches request: path and
// watcher type.
func RemoveWatchesRequest(xid int32, path string, typ int32) []byte {
	w := RequestHeader(xid, OpRemoveWatches)
	w.String(path)
	w.Int32(typ)
	return Frame(w.B)
}

// SetWatches2 is the request a client sends after reconnecting to set its
// watches again: the one-shot ones relative to the last zxid it saw (the
// server fires those whose node changed since), the persistent ones as
// they were (nothing is replayed for them).
type SetWatches2 struct {
	RelativeZxid        int64
	Data, Exist, Child  []string
	Persistent          []string
	PersistentRecursive []string
}

// Request is the framed setWatches2 request.
func (s SetWatches2) Request(xid int32) []byte {
	w := RequestHeader(xid, OpSetWatches2)
	w.Int64(s.RelativeZxid)
	for _, v := range [][]string{s.Data, s.Exist, s.Child, s.Persistent, s.PersistentRecursive} {
		w.Int32(int32(len(v)))
		for _, p := range v {
			w.String(p)
		}
	}
	return Frame(w.B)
}

// DecodeSetWatches2 decodes a setWatches2 body (after the request header).
func DecodeSetWatches2(b []byte) (SetWatches2, error) {
	r := jute.NewReader(b)
	s := SetWatches2{RelativeZxid: r.Int64()}
	for _, v := range []*[]string{&s.Data, &s.Exist, &s.Child, &s.Persistent, &s.PersistentRecursive} {
		n := r.Count()
		for i := 0; i < n && r.Err() == nil; i++ {
			*v = append(*v, string(r.Buffer()))
		}
	}
	if r.Err() != nil {
		return SetWatches2{}, fmt.Errorf("decode setWatches2: %w", r.Err())
	}
	if r.Left() != 0 {
		return SetWatches2{}, fmt.Errorf("decode setWatches2: %d bytes left over", r.Left())
	}
	return s, nil
}

// Notification is a WatcherEvent: what a server sends with xid -1.
type Notification struct {
	Type  int32  // EventNodeCreated...
	State int32  // KeeperState; 3 (SyncConnected) for node events
	Path  string // the server's path (chroot included)
}

// DecodeNotification decodes a notification's body (after the reply
// header). The path is copied.
func DecodeNotification(body []byte) (Notification, error) {
	r := jute.NewReader(body)
	n := Notification{Type: r.Int32(), State: r.Int32()}
	p := r.Buffer()
	if r.Err() != nil {
		return Notification{}, fmt.Errorf("decode notification: %w", r.Err())
	}
	if r.Left() != 0 {
		return Notification{}, fmt.Errorf("decode notification: %d bytes left over", r.Left())
	}
	n.Path = string(p)
	return n, nil
}

// Body is the notification encoded as a server sends it (after the reply
// header).
func (n Notification) Body() []byte {
	w := &jute.Writer{}
	w.Int32(n.Type)
	w.Int32(n.State)
	w.String(n.Path)
	return w.B
}
