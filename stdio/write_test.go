package stdio

import "testing"

func TestHasMethod(t *testing.T) {
	for msg, want := range map[string]bool{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`:     true,
		`{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage"}`:      true,
		`{"jsonrpc":"2.0","id":7,"result":{"method":"x"}}`:                    false,
		`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"nope"}}`: false,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`:   false,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`:                              false,
	} {
		if got := hasMethod([]byte(msg)); got != want {
			t.Errorf("hasMethod(%s) = %v", msg, got)
		}
	}
}
