package wire

import (
	"errors"
	"fmt"
	"io"

	"github.com/zkscope/zkscope/zkview/jute"
)

// OpSASL carries one SASL token each way (GetSASLRequest, SetSASLResponse);
// OpWhoAmI asks which identities the connection holds (3.7+).
const (
	OpSASL   int32 = 102
	OpWhoAmI int32 = 107
)

// Server error codes of authentication (KeeperException.Code).
const (
	// CodeSASLRequired: the server requires SASL (enforce.auth.enabled) and
	// closes a session that sends anything else first.
	CodeSASLRequired int32 = -124
)

// ErrSASLRequired is the server's answer to a request from a connection
// that did not authenticate with SASL while the server requires it.
var ErrSASLRequired = errors.New("the server requires SASL authentication (SESSIONCLOSEDREQUIRESASLAUTH)")

// SASLMechanism is one SASL exchange's client side (zkview/sasl makes
// them): the first token, then an answer to each server token; done says
// the client is satisfied (a non-nil answer is still sent, and the
// server's reply read).
type SASLMechanism interface {
	Start() ([]byte, error)
	Step(challenge []byte) (resp []byte, done bool, err error)
}

// SASLRefused is the server's refusal of a SASL token: its error code.
type SASLRefused struct{ Code int32 }

func (e SASLRefused) Error() string {
	switch e.Code {
	case CodeAuthFailed:
		return "the server refused the credentials (AUTHFAILED)"
	case CodeSASLRequired:
		return "the server refused the credentials (SESSIONCLOSEDREQUIRESASLAUTH)"
	}
	return fmt.Sprintf("the server answered error %d", e.Code)
}

// SASLRequest is a framed GetSASLRequest carrying token.
func SASLRequest(xid int32, token []byte) []byte {
	w := RequestHeader(xid, OpSASL)
	w.Buffer(token)
	return Frame(w.B)
}

// saslLimit bounds a server's SASL reply (tokens are a few kilobytes).
const saslLimit = 1 << 16

// SASLExchange runs m on rw, a connection whose session handshake just
// completed and on which nothing else was sent: tokens go out with xids
// 1, 2, ... until m is done and the server answered its last token. A
// refusal is a [SASLRefused]; the caller bounds it with deadlines.
func SASLExchange(rw io.ReadWriter, m SASLMechanism) error {
	tok, err := m.Start()
	if err != nil {
		return err
	}
	for xid := int32(1); ; xid++ {
		reply, err := saslRoundTrip(rw, xid, tok)
		if err != nil {
			return err
		}
		next, done, err := m.Step(reply)
		if err != nil {
			return err
		}
		if done && next == nil {
			return nil
		}
		if done {
			_, err := saslRoundTrip(rw, xid+1, next)
			return err
		}
		if xid > 20 {
			return errors.New("the SASL exchange did not end after 20 tokens")
		}
		tok = next
	}
}

// saslRoundTrip sends one token and reads the server's answer to it
// (notifications and pings in between are skipped).
func saslRoundTrip(rw io.ReadWriter, xid int32, tok []byte) ([]byte, error) {
	if _, err := rw.Write(SASLRequest(xid, tok)); err != nil {
		return nil, fmt.Errorf("send a SASL token: %w", err)
	}
	for {
		pkt, err := ReadPacket(rw, saslLimit)
		if err != nil {
			return nil, fmt.Errorf("read the server's SASL answer: %w", err)
		}
		r := jute.NewReader(pkt)
		rxid, _, code := r.Int32(), r.Int64(), r.Int32()
		if r.Err() != nil {
			return nil, fmt.Errorf("read the server's SASL answer: %w", r.Err())
		}
		if rxid != xid {
			continue
		}
		if code != CodeOK {
			return nil, SASLRefused{Code: code}
		}
		if r.Left() == 0 {
			return nil, nil // an answer without a token
		}
		tok := r.BufferCopy()
		if r.Err() != nil {
			return nil, fmt.Errorf("read the server's SASL token: %w", r.Err())
		}
		return tok, nil
	}
}

// WhoAmIRequest is a framed whoAmI request (3.7+; no body).
func WhoAmIRequest(xid int32) []byte { return Frame(RequestHeader(xid, OpWhoAmI).B) }

// ClientInfo is one identity a connection holds (WhoAmIResponse): its
// scheme ("sasl", "digest", "ip", "x509") and id.
type ClientInfo struct{ Scheme, ID string }

// DecodeWhoAmIResponse decodes a WhoAmIResponse body: a vector of
// ClientInfo (authScheme, user).
func DecodeWhoAmIResponse(body []byte) ([]ClientInfo, error) {
	r := jute.NewReader(body)
	n := r.Count()
	out := make([]ClientInfo, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		scheme := string(r.Buffer())
		out = append(out, ClientInfo{Scheme: scheme, ID: string(r.Buffer())})
	}
	if r.Err() != nil {
		return nil, fmt.Errorf("decode whoAmI reply: %w", r.Err())
	}
	return out, nil
}
