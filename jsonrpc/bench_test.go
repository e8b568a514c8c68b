package jsonrpc

import (
	"strings"
	"testing"
)

// benchBodies are typical request bodies: a small call, a call whose
// arguments are large, and a batch.
var benchBodies = []struct {
	name string
	body []byte
}{
	{"call", []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Paris","days":5},"_meta":{"progressToken":"p1"}}}`)},
	{"large", []byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"store","arguments":{"text":"` + strings.Repeat("lorem ipsum \\\"dolor\\\" ", 4096) + `","items":[` + strings.Repeat(`{"k":"v","n":[1,2,3]},`, 512) + `{}]}}}`)},
	{"batch", []byte(`[` + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 15) + `{"jsonrpc":"2.0","method":"notifications/initialized"}]`)},
}

func BenchmarkParse(b *testing.B) {
	for _, bb := range benchBodies {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Parse(bb.body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
