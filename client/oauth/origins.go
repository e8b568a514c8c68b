package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// checkURL accepts an absolute https URL, or http on a loopback host (a
// local development server), without credentials or fragment.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" || u.User != nil || u.Fragment != "" ||
		(u.Scheme != "https" && (u.Scheme != "http" || !isLoopback(u.Hostname()))) {
		return fmt.Errorf("%q is not an https URL (http only on loopback)", raw)
	}
	return nil
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// port is a URL's port, the scheme's default when it names none.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// DenyPrivateFromPublic is the default Config.CheckServer. When the MCP
// server is public, it refuses authorization server URLs whose host is,
// or resolves to, a loopback, private (RFC 1918, RFC 4193), link-local or
// unspecified address: a public server has no business pointing its
// clients at their own network, such as a cloud metadata service at
// 169.254.169.254. An MCP server on such an address itself (a local or
// intranet deployment) may name any authorization server.
//
// Names are resolved with net.DefaultResolver; the addresses are not
// pinned for the request that follows, so for a guarantee against DNS
// rebinding give Config.HTTPClient a dialer that refuses such addresses.
func DenyPrivateFromPublic(ctx context.Context, mcpServer, target *url.URL) error {
	if internal(ctx, mcpServer.Hostname()) || !internal(ctx, target.Hostname()) {
		return nil
	}
	return fmt.Errorf("oauth: the authorization server %s is on a private, loopback or link-local address, and the MCP server %s is public", target.Host, mcpServer.Host)
}

// internal reports whether host is, or resolves to, an address of the
// client's own machine or network. A name that does not resolve is not.
func internal(ctx context.Context, host string) bool {
	if isLoopback(host) || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return internalAddr(ip)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if internalAddr(a) {
			return true
		}
	}
	return false
}

func internalAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified()
}

// checkServer asks Config.CheckServer about each authorization server
// URL, on behalf of the MCP server at server.
func (t *Transport) checkServer(ctx context.Context, server *url.URL, urls ...string) error {
	check := t.cfg.CheckServer
	if check == nil {
		check = DenyPrivateFromPublic
	}
	for _, raw := range urls {
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("oauth: %w", err)
		}
		if err := check(ctx, server, u); err != nil {
			return err
		}
	}
	return nil
}

// sameOriginClient returns a copy of hc that gives up after timeout (or
// hc's shorter Timeout) and follows redirects only within the origin of
// the first request, then as hc would: the client's discovery,
// registration and token requests go to no host that the one it asked did
// not choose to name in its own metadata.
func sameOriginClient(hc *http.Client, timeout time.Duration) *http.Client {
	c := *hc
	if c.Timeout <= 0 || c.Timeout > timeout {
		c.Timeout = timeout
	}
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, via[0].URL) {
			return fmt.Errorf("oauth: %s redirects to another origin (%s), which is not followed", via[0].URL.Redacted(), req.URL.Redacted())
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("oauth: stopped after 10 redirects")
		}
		return nil
	}
	return &c
}
