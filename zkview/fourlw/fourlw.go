package fourlw

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/zkscope/zkscope/peer"
	"io"
	"net"
	"strings"
	"time"
)

// DefaultWordTimeout bounds one four-letter word round trip (dial, send,
// read to EOF) when the caller gives none.
const DefaultWordTimeout = 3 * time.Second

// maxWordReply caps a reply; `dump` or `wchp` of a busy server can be big.
const maxWordReply = 64 << 20

// IntrospectionWords is the 4lw.commands.whitelist zkscope needs on every
// member.
const IntrospectionWords = "srvr,mntr,cons,wchp,wchc,dump,conf,wchs"

// ErrWordRefused matches (with [errors.Is]) every [*WordRefusedError].
var ErrWordRefused = errors.New("four-letter word not in the server's whitelist")

// ErrNotServing is returned when a member answers that it is not serving
// requests (starting up, or without a quorum).
var ErrNotServing = errors.New("the member is not currently serving requests")

// WordRefusedError is a member's refusal of a four-letter word that its
// 4lw.commands.whitelist does not list. Its message says how to enable it.
type WordRefusedError struct {
	Addr string // the member's client address
	Word string // the refused word
}

// Error implements error.
func (e *WordRefusedError) Error() string {
	return fmt.Sprintf("%s refused the four-letter word %q (not in its whitelist): "+
		"add 4lw.commands.whitelist=%s to zoo.cfg on every member and restart them, "+
		"or use the AdminServer (admin.enableServer=true, and admin_port in zkscope's context)",
		e.Addr, e.Word, IntrospectionWords)
}

// Is makes errors.Is(err, [ErrWordRefused]) true.
func (e *WordRefusedError) Is(target error) bool { return target == ErrWordRefused }

// WordDialer opens the connection a word is sent on: a plain TCP dial, or
// TLS to a secure client port. It has the shape of go-zookeeper's zk.Dialer.
type WordDialer func(network, addr string, timeout time.Duration) (net.Conn, error)

// FourLetterWord sends word (its 4 bytes, no newline: a newline makes the
// server reset the socket) to the member at addr and reads the reply to
// EOF. timeout bounds the round trip (0: [DefaultWordTimeout]); ctx can end
// it sooner. dial may be nil (plain TCP). A refused word returns a
// [*WordRefusedError]; a member that is not serving, [ErrNotServing].
func FourLetterWord(ctx context.Context, dial WordDialer, addr, word string, timeout time.Duration) (string, error) {
	if len(word) != 4 {
		return "", fmt.Errorf("four-letter word %q: not 4 bytes", word)
	}
	if timeout <= 0 {
		timeout = DefaultWordTimeout
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("%s on %s: %w", word, addr, err)
	}
	if dial == nil {
		dial = net.DialTimeout
	}
	conn, err := dial("tcp", addr, time.Until(deadline))
	if err != nil {
		return "", fmt.Errorf("%s on %s: %w", word, addr, err)
	}
	conn = peer.WatchZooKeeper(conn, addr, dial, nil) // a Redis or HTTP port says so
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() }) // wakes a blocked read
	defer stop()
	if err := conn.SetDeadline(deadline); err != nil {
		return "", fmt.Errorf("%s on %s: %w", word, addr, err)
	}
	if _, err := io.WriteString(conn, word); err != nil {
		return "", fmt.Errorf("send %s to %s: %w", word, addr, preferCtx(ctx, err))
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(conn, maxWordReply+1))
	if err != nil {
		return "", fmt.Errorf("read %s reply from %s: %w", word, addr, preferCtx(ctx, err))
	}
	if n > maxWordReply {
		return "", fmt.Errorf("read %s reply from %s: longer than %d bytes", word, addr, maxWordReply)
	}
	out := buf.String()
	return out, refusal(addr, word, out)
}

// preferCtx reports ctx's error instead of the network error its
// cancellation caused.
func preferCtx(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// The socket deadline is ctx's own when that is sooner: it can fire a
	// moment before ctx's timer does.
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return err
}

// refusal recognises replies that are refusals rather than answers.
func refusal(addr, word, out string) error {
	s := strings.TrimSpace(out)
	switch {
	case strings.HasSuffix(s, "is not executed because it is not in the whitelist."):
		return &WordRefusedError{Addr: addr, Word: word}
	case strings.HasPrefix(s, "This ZooKeeper instance is not currently serving requests"):
		return fmt.Errorf("%s on %s: %w", word, addr, ErrNotServing)
	case s == "" && (word == "srvr" || word == "mntr" || word == "dump"):
		// These always say something: an empty reply is a reset socket.
		return fmt.Errorf("%s on %s: empty reply (the connection was reset)", word, addr)
	}
	return nil
}
