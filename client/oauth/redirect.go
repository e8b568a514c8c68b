package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// A RedirectHandler takes the user through the authorization endpoint:
// it opens authURL (in a browser, for a command-line tool) and returns the
// URL the authorization server redirected back to, with its code, state
// and iss parameters. The client checks them.
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
