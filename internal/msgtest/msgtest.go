// Package msgtest reads JSON-RPC messages as a client of a message-based
// transport sees them (package direct, package stdio), for the tests of
// those transports.
package msgtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Message is one JSON-RPC message the server sent.
type Message struct {
	Raw    []byte         // the message as it was sent
	ID     string         // the raw id ("1", `"a"`), "" without one
	Method string         // a request's or notification's method
	Params map[string]any // a request's or notification's params
	Result map[string]any // a response's result
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
}

// Decode reads one message, and fails for anything that is not exactly
// one JSON-RPC 2.0 message: a batch's answer, text, or a message without
// its members.
func Decode(b []byte) (Message, error) {
	var w struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  map[string]any  `json:"params"`
		Result  map[string]any  `json:"result"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&w); err != nil {
		return Message{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if d.More() {
		return Message{}, errors.New("more than one JSON value")
	}
	if w.JSONRPC != "2.0" {
		return Message{}, errors.New(`no "jsonrpc":"2.0"`)
	}
	if w.Method == "" && w.Result == nil && w.Error == nil {
		return Message{}, errors.New("neither a request, a notification nor a response")
	}
	m := Message{Raw: append([]byte(nil), b...), Method: w.Method, Params: w.Params, Result: w.Result, Error: w.Error}
	if len(w.ID) > 0 && string(w.ID) != "null" {
		m.ID = string(w.ID)
	}
	return m, nil
}

// Text returns the text of a tools/call result's first content item.
func (m Message) Text() string {
	content, _ := m.Result["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	item, _ := content[0].(map[string]any)
	s, _ := item["text"].(string)
	return s
}
