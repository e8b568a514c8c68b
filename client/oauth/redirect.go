package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// A RedirectHandler takes the user through the authorization endpoint:
// it opens authURL (in a browser, for a command-line tool) and returns the
// URL the authorization server redirected back to, with its code, state
// and iss parameters. The client checks them. The Transport hands it only
// https URLs (http on loopback): metadata naming any other endpoint, such
// as a javascript:, file: or data: URL, is refused.
type RedirectHandler interface {
	Authorize(ctx context.Context, authURL string) (*url.URL, error)
}

// RedirectFunc makes a function a RedirectHandler.
type RedirectFunc func(ctx context.Context, authURL string) (*url.URL, error)

// Authorize calls f.
func (f RedirectFunc) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	return f(ctx, authURL)
}

// FollowRedirect is a RedirectHandler for servers that authorize without
// a person, as test servers do: it requests authURL and returns where the
// server redirects to, without following it.
type FollowRedirect struct {
	// Client makes the request; nil means a client with default settings.
	Client *http.Client
}

// Authorize requests authURL and returns its redirect's Location.
func (f FollowRedirect) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	hc := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if f.Client != nil {
		hc.Transport, hc.Jar, hc.Timeout = f.Client.Transport, f.Client.Jar, f.Client.Timeout
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: authorization request: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	res.Body.Close()
	loc, err := res.Location()
	if err != nil {
		if errors.Is(err, http.ErrNoLocation) {
			return nil, fmt.Errorf("oauth: the authorization endpoint answered HTTP %d without a redirect", res.StatusCode)
		}
		return nil, fmt.Errorf("oauth: %w", err)
	}
	return loc, nil
}

// LoopbackRedirect is a RedirectHandler for command-line tools: it
// listens on the loopback redirect URI of the authorization request
// (Config.RedirectURL, such as http://127.0.0.1:8976/callback), has Open
// show the user the authorization page, usually in a browser, and returns
// the URL the browser is sent back to. Requests to the listener that do not
// carry the flow's state are answered 400 and ignored.
type LoopbackRedirect struct {
	// Open shows authURL to the user.
	Open func(authURL string) error
	// Done is the page the browser shows once redirected back; default a
	// line saying the window can be closed.
	Done string
}

// Authorize listens on the redirect URI, opens authURL and waits for the
// browser's return, or for ctx to end.
func (l LoopbackRedirect) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	if err := checkURL(authURL); err != nil {
		return nil, fmt.Errorf("oauth: LoopbackRedirect opens only https authorization pages: %w", err)
	}
	au, _ := url.Parse(authURL)
	redirect, err := url.Parse(au.Query().Get("redirect_uri"))
	if err != nil || redirect.Scheme != "http" || applicationType(redirect.String()) != "native" || redirect.Port() == "" {
		return nil, fmt.Errorf("oauth: LoopbackRedirect needs an http://127.0.0.1:<port>/ redirect URI, not %q", au.Query().Get("redirect_uri"))
	}
	state := au.Query().Get("state")
	if state == "" {
		return nil, errors.New("oauth: LoopbackRedirect needs an authorization URL with a state")
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", redirect.Host)
	if err != nil {
		return nil, fmt.Errorf("oauth: listening for the redirect: %w", err)
	}
	done := l.Done
	if done == "" {
		done = "Authorization complete. You can close this window."
	}
	got := make(chan *url.URL, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != redirect.Path {
			http.NotFound(w, r)
			return
		}
		// Any web page (an <img>) or local process can call the listener:
		// only the callback carrying this flow's state counts.
		if got := r.URL.Query().Get("state"); subtle.ConstantTimeCompare([]byte(got), []byte(state)) != 1 {
			http.Error(w, "This is not the authorization response this application waits for.", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, done)
		u := *redirect
		u.RawQuery = r.URL.RawQuery
		select {
		case got <- &u:
		default: // a second visit: the first one counts
		}
	})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	defer func() {
		// Gracefully, so that the browser gets its page.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
		<-served
	}()
	if err := l.Open(authURL); err != nil {
		return nil, fmt.Errorf("oauth: opening the authorization page: %w", err)
	}
	select {
	case u := <-got:
		return u, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth: waiting for the authorization redirect: %w", ctx.Err())
	}
}
