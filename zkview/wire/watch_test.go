package wire

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
)

// TestAddWatchRequest: length, xid, op code 106, path, mode, as
// AddWatchRequest.jute lays them out.
func TestAddWatchRequest(t *testing.T) {
	got := AddWatchRequest(7, "/a", ModePersistentRecursive)
	want := []byte{0, 0, 0, 18, 0, 0, 0, 7, 0, 0, 0, 106, 0, 0, 0, 2, '/', 'a', 0, 0, 0, 1}
	if !bytes.Equal(got, want) {
		t.Fatalf("addWatch request\n got %v\nwant %v", got, want)
	}
	got = RemoveWatchesRequest(9, "/a", WatcherTypeAny)
	want = []byte{0, 0, 0, 18, 0, 0, 0, 9, 0, 0, 0, 18, 0, 0, 0, 2, '/', 'a', 0, 0, 0, 3}
	if !bytes.Equal(got, want) {
		t.Fatalf("removeWatches request\n got %v\nwant %v", got, want)
	}
}

// TestSetWatches2RoundTrip: the request decodes back to itself, the five
// lists in SetWatches2.jute's order after the relative zxid.
func TestSetWatches2RoundTrip(t *testing.T) {
	in := SetWatches2{RelativeZxid: 0x1234, Data: []string{"/d"}, Child: []string{"/c1", "/c2"},
		Persistent: []string{"/p"}, PersistentRecursive: []string{"/", "/locks"}}
	b := in.Request(5)
	if n := int(binary.BigEndian.Uint32(b)); n != len(b)-4 {
		t.Fatalf("frame length %d for %d bytes", n, len(b)-4)
	}
	if op := int32(binary.BigEndian.Uint32(b[8:])); op != OpSetWatches2 {
		t.Fatalf("op code %d", op)
	}
	out, err := DecodeSetWatches2(b[12:])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n in %+v\nout %+v", in, out)
	}
	if _, err := DecodeSetWatches2(b[12 : len(b)-1]); err == nil {
		t.Fatal("a truncated setWatches2 decoded")
	}
}

func TestDecodeNotification(t *testing.T) {
	body := []byte{0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 4, '/', 'x', '/', 'y'}
	n, err := DecodeNotification(body)
	if err != nil {
		t.Fatal(err)
	}
	if n != (Notification{Type: EventNodeCreated, State: 3, Path: "/x/y"}) {
		t.Fatalf("decoded %+v", n)
	}
	if !bytes.Equal(n.Body(), body) {
		t.Fatalf("re-encoded %v", n.Body())
	}
	for _, bad := range [][]byte{body[:15], append(body[:16:16], 0), {0, 0, 0, 1, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xf0}} {
		if _, err := DecodeNotification(bad); err == nil {
			t.Errorf("malformed %v decoded", bad)
		}
	}
}

// FuzzDecodeNotification: the notification decoder never panics, and what
// it accepts encodes back to the same bytes.
func FuzzDecodeNotification(f *testing.F) {
	f.Add(Notification{Type: EventNodeDeleted, State: 3, Path: "/locks/a/_c_x-lock-0000000001"}.Body())
	f.Add(Notification{Type: EventNone, State: -112}.Body())
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := DecodeNotification(b)
		if err != nil {
			return
		}
		// A null path (-1) decodes as "" and encodes as an empty string.
		if enc := n.Body(); !bytes.Equal(enc, b) && !(n.Path == "" && len(b) == 12) {
			t.Fatalf("%v decoded to %+v, encodes to %v", b, n, enc)
		}
	})
}
