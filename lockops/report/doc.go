package report

// The document's writer (json.go holds what it writes of a participant
// and a problem), and [ChangesWriter], which writes the documents of
// `locks --watch --json --changes` one after another.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/zkscope/zkscope/lockops"
	"github.com/zkscope/zkscope/lockops/diagnose"
)

// ChangesWriter writes [WriteJSONChanges]' documents (the same bytes),
// one after another, reusing its buffers, and the verification's
// encoding while it is unchanged: a frame of a lock or two costs no
// buffer or reflection of its own. The zero value is ready.
type ChangesWriter struct {
	d     docWriter
	v     diagnose.Verification
	vJSON []byte
}

// Write writes to w the report of the locks that changed ([WriteJSONChanges]).
func (c *ChangesWriter) Write(w io.Writer, servers []string, changed []lockops.Queue, gone []string, v *diagnose.Verification, scanProblems []lockops.Problem) error {
	if c.d.bw == nil {
		c.d.bw = bufio.NewWriterSize(w, 16<<10)
	} else {
		c.d.bw.Reset(w)
	}
	if gone == nil {
		gone = []string{}
	}
	var vJSON []byte
	if v != nil {
		if c.vJSON == nil || !sameVerification(&c.v, v) {
			b, err := encodeVerification(v)
			if err != nil {
				return err
			}
			c.v, c.vJSON = *v, b
			c.v.Refused = maps.Clone(v.Refused) // (its lists are never changed: a new answer makes a new map)
		}
		vJSON = c.vJSON
	}
	return c.d.report(servers, changed, vJSON, scanProblems, gone)
}

// sameVerification reports whether a and b encode the same.
func sameVerification(a, b *diagnose.Verification) bool {
	return a.Asked == b.Asked && a.ClientsKnown == b.ClientsKnown && a.WatchesKnown == b.WatchesKnown && a.Note == b.Note &&
		(a.Refused == nil) == (b.Refused == nil) && maps.EqualFunc(a.Refused, b.Refused, slices.Equal)
}

// docWriter writes reports through bw, reusing buf (a node's object, a
// list of strings) from part to part. Strings are written as
// encoding/json's Encoder writes them (appendJSONString), each list and
// the lock's path and recipe followed by the newline Encode ends with.
type docWriter struct {
	bw    *bufio.Writer
	buf   []byte
	times ctimes
}

// report writes one report: vJSON is the verification's encoding (nil:
// none); gone not nil: a report of changes.
func (d *docWriter) report(servers []string, queues []lockops.Queue, vJSON []byte, scanProblems []lockops.Problem, gone []string) error {
	bw := d.bw
	d.buf = strconv.AppendInt(append(d.buf[:0], `{"schema":`...), ReportSchema, 10)
	bw.Write(append(d.buf, `,"servers":`...))
	d.strings(servers)
	if vJSON != nil {
		bw.WriteString(`,"verification":`)
		bw.Write(vJSON)
	}
	bw.WriteString(`,"locks":[`)
	for i := range queues {
		if i > 0 {
			bw.WriteByte(',')
		}
		if err := d.lock(&queues[i]); err != nil {
			return err
		}
	}
	bw.WriteString("]")
	if len(scanProblems) > 0 {
		bw.WriteString(`,"problems":[`)
		for i := range scanProblems {
			if i > 0 {
				bw.WriteByte(',')
			}
			d.buf = AppendProblemJSON(d.buf[:0], &scanProblems[i], "/")
			if _, err := bw.Write(d.buf); err != nil {
				return err
			}
		}
		bw.WriteByte(']')
	}
	if gone != nil {
		bw.WriteString(`,"changes":true,"gone":`)
		d.strings(gone)
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// strings writes list as a JSON array (nil as []) and a newline.
func (d *docWriter) strings(list []string) {
	b := append(d.buf[:0], '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	d.buf = append(b, "]\n"...)
	d.bw.Write(d.buf)
}

// encodeVerification is v as encoding/json's Encoder writes it (HTML
// escaping off), newline included.
func encodeVerification(v *diagnose.Verification) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (d *docWriter) lock(q *lockops.Queue) error {
	b := append(d.buf[:0], `{"path":`...)
	b = append(appendJSONString(b, q.Path), '\n')
	b = append(b, `,"recipe":`...)
	b = append(appendJSONString(b, string(q.Kind)), '\n')
	if q.MaxLeases > 0 {
		b = strconv.AppendInt(append(b, `,"max_leases":`...), int64(q.MaxLeases), 10)
	}
	if q.HasValidity {
		b = strconv.AppendInt(append(b, `,"validity_ms":`...), q.Validity.Milliseconds(), 10)
	}
	if len(q.Context) > 0 {
		b = appendFieldsJSON(append(b, `,"context":`...), q.Context)
	}
	d.buf = append(b, `,"participants":[`...)
	bw := d.bw
	bw.Write(d.buf)
	for i := range q.Participants {
		if i > 0 {
			bw.WriteByte(',')
		}
		d.buf = appendParticipantJSON(d.buf[:0], &q.Participants[i], &d.times, q.Kind.IsRedis(), q.ReadAt)
		if _, err := bw.Write(d.buf); err != nil {
			return err
		}
	}
	bw.WriteString(`],"problems":[`)
	for i := range q.Problems {
		if i > 0 {
			bw.WriteByte(',')
		}
		d.buf = AppendProblemJSON(d.buf[:0], &q.Problems[i], q.Path)
		if _, err := bw.Write(d.buf); err != nil {
			return err
		}
	}
	bw.WriteByte(']')
	if len(q.Others) > 0 {
		bw.WriteString(`,"other_views":[`)
		for i := range q.Others {
			if i > 0 {
				bw.WriteByte(',')
			}
			if err := d.lock(&q.Others[i]); err != nil {
				return err
			}
		}
		bw.WriteByte(']')
	}
	bw.WriteString("}\n")
	return nil
}
