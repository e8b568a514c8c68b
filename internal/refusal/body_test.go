package refusal

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// refuseUnread refuses every request without reading its body.
var refuseUnread = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	AbandonBody(w, r)
	Write(w, nil, Status(http.StatusUnauthorized, "a bearer token is required"))
})

func TestAbandonBodyAnswersATrickleAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv := httptest.NewServer(refuseUnread)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A bound far above DrainGrace, so that a server that waits for the
	// body fails the test rather than hang it.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	// Headers and one byte of a 100-byte body; the rest never comes.
	if _, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "a bearer token is required") {
		t.Errorf("answer %d %s", resp.StatusCode, body)
	}
	if !resp.Close {
		t.Error("the answer does not close the connection")
	}
	// The server lets the connection go within DrainGrace: the read
	// ends (EOF or reset) without the body ever being finished.
	if _, err := io.Copy(io.Discard, br); err != nil && !isReset(err) {
		t.Errorf("after the answer: %v, want the connection closed", err)
	}
}

func TestAbandonBodyKeepsBodilessConnections(t *testing.T) {
	srv := httptest.NewServer(refuseUnread)
	defer srv.Close()
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, srv.URL, nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.Close || resp.Header.Get("Connection") != "" {
			t.Errorf("%s without a body: the connection closes", method)
		}
	}
}

func TestAbandonBodyWithoutAConnection(t *testing.T) {
	w := httptest.NewRecorder()
	refuseUnread.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")))
	if w.Code != http.StatusUnauthorized || w.Header().Get("Connection") != "close" {
		t.Errorf("status %d, Connection %q", w.Code, w.Header().Get("Connection"))
	}
}

func isReset(err error) bool {
	return strings.Contains(err.Error(), "connection reset")
}
