package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// chunk is what one read of the server's stdout returned: the messages
// whose line ended in it, as a client that dispatches each read's
// messages together (the TypeScript SDK does) sees them.
type chunk []map[string]json.RawMessage

// startOnSocket starts the stdio fixture with its stdout on a Unix socket
// pair, as Node starts child processes, and reads it as such a client
// does: one read at a time, each read's complete lines a chunk.
func startOnSocket(t *testing.T) (stdin *os.File, chunks <-chan chunk) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "stdout"), os.NewFile(uintptr(fds[1]), "child stdout")
	in, toChild, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(stdioFixtureBin(t), "-stdio")
	// An answer waits for the client to read the notifications before it
	// however long this loaded machine takes to schedule the reader.
	cmd.Env = append(os.Environ(), "SPECTER_STDIO_SETTLE=1h")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, theirs, &lockedBuffer{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = in.Close()
	_ = theirs.Close()
	out := make(chan chunk, 64)
	go func() {
		defer close(out)
		buf, partial := make([]byte, 64<<10), []byte(nil)
		for {
			n, err := ours.Read(buf)
			if n > 0 {
				data := append(partial, buf[:n]...)
				end := bytes.LastIndexByte(data, '\n') + 1
				var c chunk
				for line := range bytes.Lines(data[:end]) {
					var m map[string]json.RawMessage
					if json.Unmarshal(line, &m) == nil {
						c = append(c, m)
					}
				}
				partial = append([]byte(nil), data[end:]...)
				if len(c) > 0 {
					out <- c
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = toChild.Close() // EOF: the server exits
		_ = cmd.Wait()
		_ = ours.Close()
	})
	return toChild, out
}

// A tool's progress notifications reach a stdio client before its
// result, all three of the fixture's, in both eras, and the result
// arrives in a read of its own: a client that dispatches notifications
// after the answers of the same read (the TypeScript SDK) still sees every
// progress before the result (issue 19, item 5: it saw 2 of 3).
func TestStdioProgressBeforeResult(t *testing.T) {
	stdin, chunks := startOnSocket(t)
	send := func(lines ...string) {
		for _, l := range lines {
			if _, err := stdin.WriteString(l + "\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	// answer reads chunks until the answer to id, and returns the
	// progress notifications of token that came before it, in order, and
	// whether the answer's read held any of them.
	answer := func(id, token string) (progress []float64, shared bool) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case c, ok := <-chunks:
				if !ok {
					t.Fatal("stdout ended")
				}
				inChunk := 0
				for _, m := range c {
					var p struct {
						ProgressToken json.RawMessage `json:"progressToken"`
						Progress      float64         `json:"progress"`
					}
					switch {
					case string(m["method"]) == `"notifications/progress"` && json.Unmarshal(m["params"], &p) == nil && string(p.ProgressToken) == token:
						progress = append(progress, p.Progress)
						inChunk++
					case string(m["id"]) == id && m["method"] == nil:
						return progress, inChunk > 0
					}
				}
			case <-timeout:
				t.Fatalf("no answer to %s", id)
			}
		}
	}
	check := func(era string, progress []float64, shared bool) {
		t.Helper()
		if len(progress) != 3 || progress[0] != 0 || progress[1] != 50 || progress[2] != 100 {
			t.Errorf("%s: progress before the result: %v; want [0 50 100]", era, progress)
		}
		if shared {
			t.Errorf("%s: the result came in the same read as a progress notification before it", era)
		}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	answer("1", "")
	// A few calls each: whether a reader gets the two in one read depends
	// on how fast it reads, and this one reads fast.
	for i := range 8 {
		era, token := "2025-11-25", fmt.Sprintf("p%d", i)
		meta := `"_meta":{"progressToken":"` + token + `"}`
		if i%2 == 1 {
			era = "2026-07-28"
			meta = `"_meta":{"progressToken":"` + token + `","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		}
		id := strconv.Itoa(i + 2)
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},` + meta + `}}`)
		progress, shared := answer(id, `"`+token+`"`)
		check(era, progress, shared)
	}
}
