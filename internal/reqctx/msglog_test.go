package reqctx

import (
	"context"
	"sync"
	"testing"
)

type sink struct {
	mu   sync.Mutex
	msgs []Message
}

func (s *sink) Note(m Message) {
	s.mu.Lock()
	s.msgs = append(s.msgs, m)
	s.mu.Unlock()
}

func TestNoteReachesTheSink(t *testing.T) {
	s := &sink{}
	ctx := WithSink(context.Background(), s)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			Note(ctx, Message{Method: "tools/call", Name: "add"})
		}()
	}
	wg.Wait()
	if len(s.msgs) != 10 || s.msgs[0].Method != "tools/call" || s.msgs[0].Name != "add" {
		t.Errorf("sink got %+v", s.msgs)
	}
}

func TestNoteWithoutSink(t *testing.T) {
	Note(context.Background(), Message{Method: "ping"}) // does nothing, does not panic
	type other struct{}
	Note(context.WithValue(context.Background(), other{}, &sink{}), Message{Method: "ping"})
}
