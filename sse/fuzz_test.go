package sse

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clientEvent is what a client dispatches, read by readStream.
type clientEvent struct {
	id, name, data string
	retry          time.Duration
}

// readStream interprets an event stream as the WHATWG HTML standard's
// "event stream interpretation" does (lines end in CRLF, LF or CR); it is
// the reference the writer is checked against, independent of mcptest's
// reader.
func readStream(stream []byte) []clientEvent {
	var (
		out   []clientEvent
		cur   clientEvent
		data  strings.Builder
		retry time.Duration
	)
	for {
		i := bytes.IndexAny(stream, "\r\n")
		if i < 0 {
			return out // an unterminated line is never processed
		}
		line := stream[:i]
		if stream[i] == '\r' && i+1 < len(stream) && stream[i+1] == '\n' {
			i++
		}
		stream = stream[i+1:]
		if len(line) == 0 {
			if data.Len() > 0 {
				cur.data = strings.TrimSuffix(data.String(), "\n")
				cur.retry = retry
				out = append(out, cur)
			}
			data.Reset()
			cur.name = ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			cur.name = string(value)
		case "data":
			data.Write(value)
			data.WriteByte('\n')
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				cur.id = string(value)
			}
		case "retry":
			if ms, err := strconv.ParseInt(string(value), 10, 64); err == nil && strings.Trim(string(value), "0123456789") == "" {
				retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}

func FuzzAppendEvent(f *testing.F) {
	f.Add("", "", []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`), int64(0))
	f.Add("s1_0", "", []byte(nil), int64(1500))
	f.Add("7", "message", []byte("a\nb\r\nc"), int64(0))
	f.Fuzz(func(t *testing.T, id, name string, data []byte, retryMS int64) {
		e := Event{ID: id, Name: name, Data: data, Retry: time.Duration(retryMS) * time.Millisecond}
		got := readStream(AppendEvent([]byte(": hello\n\n"), e))
		if len(got) != 1 {
			t.Fatalf("%+v became %d events: %+v", e, len(got), got)
		}
		want := clientEvent{
			id:   strings.NewReplacer("\r", "", "\n", "", "\x00", "").Replace(id),
			name: strings.NewReplacer("\r", "", "\n", "").Replace(name),
			data: strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(data)),
		}
		if e.Retry > 0 {
			want.retry = time.Duration(e.Retry.Milliseconds()) * time.Millisecond
		}
		if got[0] != want {
			t.Fatalf("%+v read back as %+v, want %+v", e, got[0], want)
		}
	})
}
