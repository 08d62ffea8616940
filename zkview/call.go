package zkview

import "context"

// Call runs a blocking go-zookeeper call and returns early when ctx ends:
// go-zookeeper has no context support, and a call made while disconnected
// waits for the reconnect. The call itself keeps running in the background
// until it completes; its result is then dropped.
func Call[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
