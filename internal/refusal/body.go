package refusal

import (
	"net/http"
	"time"
)

// DrainGrace is how long the body of a request refused before its body was
// read may still take to arrive (see AbandonBody).
const DrainGrace = time.Second

// AbandonBody readies the refusal of req before its body was read, so that
// the server does not wait for that body. Call it before writing the
// answer.
//
// Without it net/http reads up to 256 KiB of the unread body before it
// sends the answer, so a client that trickles its body holds the answer,
// the connection and its goroutine for as long as it likes. AbandonBody
// sets "Connection: close", which makes the server answer at once and then
// close the connection, and a read deadline DrainGrace away, which bounds
// how long the server reads what the client already sent before it closes
// (reading it lets the connection close cleanly rather than be reset).
// Requests without a body keep their connection.
func AbandonBody(w http.ResponseWriter, req *http.Request) {
	if req.ContentLength == 0 {
		return
	}
	w.Header().Set("Connection", "close")
	// Writers that cannot set deadlines (a test recorder) have no
	// connection to hold.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(DrainGrace))
}
