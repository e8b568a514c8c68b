package inspector

import (
	"encoding/json"
	"sync"

	"github.com/specter-mcp/specter/mcp"
)

// event is what the page learns on its event stream.
type event struct {
	Type     string                    `json:"type"` // progress, log, elicit, elicit-done
	Call     string                    `json:"call,omitempty"`
	ID       string                    `json:"id,omitempty"`
	Progress *mcp.ProgressParams       `json:"progress,omitempty"`
	Log      *mcp.LoggingMessageParams `json:"log,omitempty"`
	Elicit   *mcp.ElicitParams         `json:"elicit,omitempty"`
}

// subscriberBuffer is how many events a page may fall behind by; a page
// further behind loses its stream (and reconnects), so that a stalled
// page holds no memory.
const subscriberBuffer = 256

// hub fans events out to the open pages.
type hub struct {
	mu     sync.Mutex
	subs   map[chan []byte]struct{}
	closed bool
}

func newHub() *hub { return &hub{subs: map[chan []byte]struct{}{}} }

func (h *hub) subscribe() chan []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	ch := make(chan []byte, subscriberBuffer)
	h.subs[ch] = struct{}{}
	return ch
}

func (h *hub) unsubscribe(ch chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[ch]; ok {
		delete(h.subs, ch)
		close(ch)
	}
}

func (h *hub) publish(e event) {
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- data:
		default:
			delete(h.subs, ch)
			close(ch)
		}
	}
}

func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}
