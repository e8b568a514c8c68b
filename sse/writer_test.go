package sse

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestAppendEvent(t *testing.T) {
	cases := []struct {
		name string
		e    Event
		want string
	}{
		{"data only", Event{Data: []byte(`{"a":1}`)}, "data: {\"a\":1}\n\n"},
		{"priming", Event{ID: "s1_0", Retry: 1500 * time.Millisecond}, "id: s1_0\nretry: 1500\ndata: \n\n"},
		{"multi-line", Event{ID: "7", Name: "message", Data: []byte("a\nb\r\nc")}, "id: 7\nevent: message\ndata: a\ndata: b\ndata: c\n\n"},
		{"lone CR ends a line", Event{Data: []byte("a\rb\r\r\nc\r")}, "data: a\ndata: b\ndata: \ndata: c\ndata: \n\n"},
		{"trailing LF", Event{Data: []byte("a\n")}, "data: a\ndata: \n\n"},
		{"id and name stay one line", Event{ID: "1\r\nevent: x\x00", Name: "m\nid: 9\r"}, "id: 1event: x\nevent: mid: 9\ndata: \n\n"},
	}
	for _, c := range cases {
		if got := string(AppendEvent(nil, c.e)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestWriterHeadersAndFlush(t *testing.T) {
	rec := httptest.NewRecorder()
	w := NewWriter(rec, 200)
	if err := w.Send(Event{ID: "1", Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Comment("keep-alive"); err != nil {
		t.Fatal(err)
	}
	if ct := rec.Header().Get("Content-Type"); ct != ContentType {
		t.Errorf("content type %q", ct)
	}
	if got := rec.Header().Get("X-Accel-Buffering"); got != "no" {
		t.Errorf("X-Accel-Buffering %q", got)
	}
	if !rec.Flushed {
		t.Error("not flushed")
	}
	if got, want := rec.Body.String(), "id: 1\ndata: x\n\n: keep-alive\n\n"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
}
