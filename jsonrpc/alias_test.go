package jsonrpc

import (
	"bytes"
	"fmt"
	"testing"
)

// The router recycles a body's buffer as soon as it is parsed, while the
// messages live on with their handlers: nothing Parse returns may alias
// the body.
func TestParseCopiesWhatItKeeps(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{"k":"v"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping","params":{}},{"jsonrpc":"2.0","id":2,"result":{"ok":true}},{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m","data":{"d":1}}}]`,
	} {
		b := []byte(body)
		msgs, _, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		before := encode(t, msgs)
		for i := range b {
			b[i] = 'x'
		}
		if after := encode(t, msgs); !bytes.Equal(before, after) {
			t.Errorf("overwriting the body changed the messages:\n%s\n%s", before, after)
		}
	}
}

func encode(t *testing.T, msgs []*Message) []byte {
	var out []byte
	for _, m := range msgs {
		out = append(out, m.ID...)
		out = append(out, m.Method...)
		out = append(out, m.Params...)
		out = append(out, m.Result...)
		if m.Error != nil {
			out = fmt.Appendf(out, "%s%v", m.Error.Message, m.Error.Data)
		}
	}
	return out
}
