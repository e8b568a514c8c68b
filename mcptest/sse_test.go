package mcptest

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// readAll reads events until an error and returns them with that error.
func readAll(t *testing.T, r io.Reader) ([]Event, error) {
	t.Helper()
	er := NewEventReader(r)
	var evs []Event
	for range 1000 {
		ev, err := er.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	t.Fatal("the reader never ended")
	return nil, nil
}

func TestEventReader(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []Event
	}{
		{"all fields", "id: 1\nevent: message\nretry: 1500\ndata: {\"a\":1}\n\n",
			[]Event{{ID: "1", Name: "message", Retry: 1500 * time.Millisecond, Data: `{"a":1}`, HasData: true}}},
		{"multi-line data", "data: a\ndata: b\ndata:\ndata: c\n\n",
			[]Event{{Data: "a\nb\n\nc", HasData: true}}},
		{"comments skipped", ": keep-alive\n\n: x\ndata: y\n: z\n\n:\n\n",
			[]Event{{Data: "y", HasData: true}}},
		{"CRLF", "id: 2\r\nevent: message\r\ndata: x\r\ndata: y\r\n\r\nid: 3\r\ndata: z\r\n\r\n",
			[]Event{{ID: "2", Name: "message", Data: "x\ny", HasData: true}, {ID: "3", Data: "z", HasData: true}}},
		{"CR line ends", "id: 4\rdata: x\rdata: y\r\r\ndata: z\r\r\n",
			[]Event{{ID: "4", Data: "x\ny", HasData: true}, {Data: "z", HasData: true}}},
		{"priming with only an id", "id: s1_0\n\ndata: {}\n\n",
			[]Event{{ID: "s1_0"}, {Data: "{}", HasData: true}}},
		{"priming with empty data", "id: s1_0\nretry: 1500\ndata: \n\n",
			[]Event{{ID: "s1_0", Retry: 1500 * time.Millisecond, HasData: true}}},
		{"bare retry", "retry: 250\n\n",
			[]Event{{Retry: 250 * time.Millisecond}}},
		{"invalid retry ignored", "retry: soon\ndata: x\n\n",
			[]Event{{Data: "x", HasData: true}}},
		{"no space after colon", "data:x\nid:7\n\n",
			[]Event{{ID: "7", Data: "x", HasData: true}}},
		{"only one space stripped", "data:  x \n\n",
			[]Event{{Data: " x ", HasData: true}}},
		{"colon in value", "data: {\"a\":\"b:c\"}\n\n",
			[]Event{{Data: `{"a":"b:c"}`, HasData: true}}},
		{"field without colon", "data\n\n",
			[]Event{{HasData: true}}},
		{"unknown field ignored", "foo: bar\ndata: x\n\n",
			[]Event{{Data: "x", HasData: true}}},
		{"last id wins", "id: 1\nid: 2\ndata: x\n\n",
			[]Event{{ID: "2", Data: "x", HasData: true}}},
		{"several events and blank lines", "\n\ndata: 1\n\n\n\ndata: 2\n\n",
			[]Event{{Data: "1", HasData: true}, {Data: "2", HasData: true}}},
		{"empty stream", "", nil},
		{"only comments", ": a\n: b\n\n", nil},
		{"unterminated single line", "data: x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(t, strings.NewReader(tt.stream))
			if err != io.EOF {
				t.Errorf("final error %v, want io.EOF", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestEventReaderOneByteReads(t *testing.T) {
	stream := "id: 9\r\nevent: message\r\ndata: a\r\ndata: b\r\n\r\n: c\n\ndata: d\n\n"
	got, err := readAll(t, iotest.OneByteReader(strings.NewReader(stream)))
	if err != io.EOF {
		t.Fatalf("final error %v", err)
	}
	want := []Event{{ID: "9", Name: "message", Data: "a\nb", HasData: true}, {Data: "d", HasData: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %+v, want %+v", got, want)
	}
}

func TestEventReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // beyond the 64 KiB buffer
	got, err := readAll(t, strings.NewReader("data: "+long+"\n\n"))
	if err != io.EOF || len(got) != 1 || got[0].Data != long {
		t.Errorf("got %d events (first %d bytes), err %v", len(got), len(got[0].Data), err)
	}
}

func TestEventReaderEOFMidEvent(t *testing.T) {
	// Whatever is done with an event cut by EOF, the reader ends with
	// io.EOF and never hands out a half-written line as data.
	for _, stream := range []string{
		"data: 1\n\nid: 2\ndata: a\ndata: {\"trunc",
		"data: 1\n\ndata: {\"trunc",
		"data: 1\n\nid: 2\ndata: {\"tr",
	} {
		got, err := readAll(t, strings.NewReader(stream))
		if err != io.EOF {
			t.Errorf("%q: final error %v, want io.EOF", stream, err)
		}
		if len(got) == 0 || got[0].Data != "1" {
			t.Errorf("%q: complete first event lost: %+v", stream, got)
		}
		for _, ev := range got {
			if strings.Contains(ev.Data, "{") {
				t.Errorf("%q: partial line delivered as data: %+v", stream, ev)
			}
		}
	}
}

func TestEventReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2\n"), iotest.ErrReader(boom))
	er := NewEventReader(r)
	ev, err := er.Next()
	if err != nil || ev.Data != "1" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	if _, err := er.Next(); !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
}
