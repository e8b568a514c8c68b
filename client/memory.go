package client

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// InMemory returns a Streamable HTTP transport that serves every request
// with h in this process, without a network: a Specter router's Handler,
// or a whole app. Responses stream as h writes and flushes them, so SSE
// answers arrive event by event; closing a response body cancels the
// request's context, as a dropped connection would.
func InMemory(h http.Handler) *HTTPTransport {
	return &HTTPTransport{
		URL:    "http://localhost/mcp",
		Client: &http.Client{Transport: handlerTransport{h}},
	}
}

// handlerTransport is an http.RoundTripper that calls a handler.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	sreq := req.Clone(ctx)
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "127.0.0.1:1"
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	go func() {
		defer func() {
			w.writeHeader(http.StatusOK)
			_ = pw.Close()
		}()
		t.h.ServeHTTP(w, sreq)
	}()
	select {
	case <-w.ready:
	case <-ctx.Done():
		cancel()
		_ = pr.Close()
		return nil, ctx.Err()
	}
	return &http.Response{
		Status:     http.StatusText(w.status),
		StatusCode: w.status,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     w.sent,
		Body:       &cancelBody{ReadCloser: pr, cancel: cancel},
		Request:    req,
	}, nil
}

// pipeWriter is the handler's ResponseWriter: headers become the
// response's when first written, the body streams through a pipe.
type pipeWriter struct {
	header http.Header
	sent   http.Header
	status int
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) { w.writeHeader(status) }

func (w *pipeWriter) writeHeader(status int) {
	w.once.Do(func() {
		w.status = status
		w.sent = w.header.Clone()
		close(w.ready)
	})
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.writeHeader(http.StatusOK)
	return w.pw.Write(b)
}

// Flush is a no-op: every Write reaches the reader at once.
func (w *pipeWriter) Flush() {}

// cancelBody cancels the handler's context when the client closes the body.
type cancelBody struct {
	io.ReadCloser
	cancel func()
}

func (b *cancelBody) Close() error {
	b.cancel()
	return b.ReadCloser.Close()
}
