package lockops

import (
	"reflect"
	"testing"
	"time"
)

// fullQueue is a queue with every field set (one participant with every
// field set), made anew at each call.
func fullQueue() Queue {
	t0 := time.Unix(1_800_000_000, 0)
	yes := true
	p := Participant{Node: "/l/n-1", Name: "n-1", Seq: 1, Version: 2, HasSeq: true, Ephemeral: true, WatcherOnly: true,
		Mode: ModeExclusive, State: StateWaiting, Position: 3, Session: 4, Czxid: 5, Data: []byte("d"), Ctime: t0,
		HeldSince: t0.Add(time.Second), HeldSource: HeldSeen, WaitSeen: t0.Add(2 * time.Second), Watches: "/l/n-0",
		WatchKind: WatchData, WatchObserved: &yes, Client: "10.0.0.1:1", ObservedWatches: []string{"/l/n-0"},
		TTL: time.Second, HasTTL: true, Holds: 6,
		DB: &DBSession{Level: "session", Database: "db", User: "u", Application: "a", State: "idle", Query: "q",
			BackendStart: t0, XactStart: t0, StateChange: t0, WaitStart: t0, BlockedBy: []int64{7}, NoBackend: true},
		Payload: &Payload{Fields: []Field{{Key: "k", Value: "v", Num: true}}, Err: "e"}}
	q := Queue{Path: "/l", Kind: KindCuratorMutex, ReadAt: t0, MaxLeases: 1, Participants: []Participant{p},
		Problems: []Problem{{Kind: ProblemOrphan, Node: "/l/n-1", Detail: "x"}}, Validity: time.Second, HasValidity: true,
		Context: []Field{{Key: "epoch", Value: "1"}}, labels: map[int64]*Payload{4: {Err: "l"}}}
	q.Others = []Queue{{Path: "/l", Kind: KindKazooLock, Participants: []Participant{p}}}
	return q
}

// changeField makes f differ from what it was.
func changeField(t *testing.T, name string, f reflect.Value) {
	switch f.Kind() {
	case reflect.String:
		f.SetString(f.String() + "x")
	case reflect.Int, reflect.Int32, reflect.Int64:
		f.SetInt(f.Int() + 1)
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Slice:
		f.Set(reflect.Append(f, reflect.Zero(f.Type().Elem())))
	case reflect.Pointer:
		f.Set(reflect.New(f.Type().Elem())) // a zero value where a set one was
	case reflect.Struct:
		if tm, ok := f.Interface().(time.Time); ok {
			f.Set(reflect.ValueOf(tm.Add(time.Nanosecond)))
			return
		}
		t.Fatalf("%s: no change known for %s", name, f.Type())
	default:
		t.Fatalf("%s: no change known for %s", name, f.Type())
	}
}

// TestEqualSeesEveryField: a queue differing from another in any one
// field, of its own, of a participant's, of a payload's or a database
// session's, is not Equal to it (as reflect.DeepEqual says): a field
// added to them and not compared fails here.
func TestEqualSeesEveryField(t *testing.T) {
	if a, b := fullQueue(), fullQueue(); !a.Equal(&b) || !reflect.DeepEqual(a, b) {
		t.Fatal("two full queues are not Equal")
	}
	targets := map[string]func(q *Queue) reflect.Value{
		"Queue":       func(q *Queue) reflect.Value { return reflect.ValueOf(q).Elem() },
		"Participant": func(q *Queue) reflect.Value { return reflect.ValueOf(&q.Participants[0]).Elem() },
		"Other's Participant": func(q *Queue) reflect.Value {
			return reflect.ValueOf(&q.Others[0].Participants[0]).Elem()
		},
		"Payload":   func(q *Queue) reflect.Value { return reflect.ValueOf(q.Participants[0].Payload).Elem() },
		"DBSession": func(q *Queue) reflect.Value { return reflect.ValueOf(q.Participants[0].DB).Elem() },
		"Problem":   func(q *Queue) reflect.Value { return reflect.ValueOf(&q.Problems[0]).Elem() },
		"Field":     func(q *Queue) reflect.Value { return reflect.ValueOf(&q.Context[0]).Elem() },
	}
	for what, target := range targets {
		n := target(ptr(fullQueue())).NumField()
		for i := range n {
			q, base := fullQueue(), fullQueue()
			v := target(&q)
			name := what + "." + v.Type().Field(i).Name
			if !v.Field(i).CanSet() {
				if name != "Queue.labels" {
					t.Fatalf("%s: unexported, not changed by this test", name)
				}
				q.labels[4] = &Payload{Err: "other"}
			} else {
				changeField(t, name, v.Field(i))
			}
			if reflect.DeepEqual(q, base) {
				t.Fatalf("%s: the change made no difference", name)
			}
			if q.Equal(&base) || base.Equal(&q) {
				t.Errorf("%s differs, yet the queues are Equal", name)
			}
		}
	}
}

func ptr(q Queue) *Queue { return &q }

// TestKindsOnly: with KindsOnly a diagnosis finds the same problems, by
// kind and node, with no sentence.
func TestKindsOnly(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	q := Queue{Path: "/l", Kind: KindCuratorMutex, ReadAt: now}
	for i, s := range []State{StateHolding, StateWaiting, StateWaiting} {
		q.Participants = append(q.Participants, Participant{Node: "/l/n-" + string(rune('0'+i)), State: s, Ctime: now.Add(-time.Hour), Session: 7})
	}
	full, terse := []Queue{q.Clone()}, []Queue{q.Clone()}
	DiagnoseQueue(full, DiagnoseOptions{Now: now, HeldLongerThan: time.Minute})
	DiagnoseQueue(terse, DiagnoseOptions{Now: now, HeldLongerThan: time.Minute, KindsOnly: true})
	if len(full[0].Problems) < 3 || len(full[0].Problems) != len(terse[0].Problems) {
		t.Fatalf("problems: %v, with KindsOnly %v", full[0].Problems, terse[0].Problems)
	}
	for i, p := range terse[0].Problems {
		if f := full[0].Problems[i]; p.Kind != f.Kind || p.Node != f.Node || p.Detail != "" || f.Detail == "" {
			t.Errorf("problem %d: %+v, with KindsOnly %+v", i, f, p)
		}
	}
}
