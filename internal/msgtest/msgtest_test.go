package msgtest

import "testing"

func TestDecode(t *testing.T) {
	for _, ok := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
	} {
		if _, err := Decode([]byte(ok)); err != nil {
			t.Errorf("Decode(%s): %v", ok, err)
		}
	}
	for _, bad := range []string{
		``, `text`, `[]`, `{}`, `[{"jsonrpc":"2.0","id":1,"result":{}}]`,
		`{"jsonrpc":"2.0"}`, `{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}} trailing`,
	} {
		if m, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%s) = %+v, want an error", bad, m)
		}
	}
	m, _ := Decode([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}`))
	if m.ID != "7" || m.Text() != "hi" {
		t.Errorf("Decode = %+v, text %q", m, m.Text())
	}
}
