package mcptest

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/specter-mcp/specter/sse"
)

// FuzzEventReader reads arbitrary streams, which must end in io.EOF with
// single-line ids and names, and reads back what sse.AppendEvent wrote.
func FuzzEventReader(f *testing.F) {
	f.Add([]byte("id: 1\nevent: message\nretry: 1500\ndata: {\"a\":1}\n\n"), "s1_0", "", []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`))
	f.Add([]byte("id: 2\r\ndata: x\r\ndata: y\r\n\r\n: keep-alive\n\n"), "", "message", []byte("a\nb\r\nc"))
	f.Add([]byte("data: a\rdata: b\r\r"), "7", "x", []byte("\r"))
	f.Add([]byte("retry: 250\n\nid: s1_0\n\ndata"), "", "", []byte(nil))
	f.Fuzz(func(t *testing.T, stream []byte, id, name string, data []byte) {
		er := NewEventReader(bytes.NewReader(stream))
		for n := 0; ; n++ {
			ev, err := er.Next()
			if err != nil {
				if err != io.EOF {
					t.Fatalf("error %v, want io.EOF", err)
				}
				break
			}
			if n > len(stream) {
				t.Fatal("more events than bytes")
			}
			if strings.ContainsAny(ev.ID, "\r\n") || strings.ContainsAny(ev.Name, "\r\n") || strings.Contains(ev.Data, "\r") {
				t.Fatalf("event %+v holds a line end", ev)
			}
		}

		e := sse.Event{ID: id, Name: name, Data: data, Retry: time.Second}
		er = NewEventReader(bytes.NewReader(sse.AppendEvent(nil, e)))
		got, err := er.Next()
		if err != nil {
			t.Fatalf("%+v: %v", e, err)
		}
		want := Event{
			ID:      strings.NewReplacer("\r", "", "\n", "", "\x00", "").Replace(id),
			Name:    strings.NewReplacer("\r", "", "\n", "").Replace(name),
			Data:    strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(data)),
			Retry:   time.Second,
			HasData: true,
		}
		if got != want {
			t.Fatalf("%+v read back as %+v, want %+v", e, got, want)
		}
	})
}
