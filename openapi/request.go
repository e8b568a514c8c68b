package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// httpRequest is an operation's HTTP request, built from a call's
// arguments: the parts a Client sends to a base URL and an in-process
// call hands to the Echo app alike.
type httpRequest struct {
	method      string
	path        string // escaped, without the base URL's path
	query       url.Values
	header      http.Header
	cookies     []*http.Cookie
	body        []byte
	contentType string
}

// request fills the operation's path, query, header, cookie and body from
// args.
func (op *Operation) request(args map[string]any) (*httpRequest, error) {
	r := &httpRequest{method: op.Method, query: url.Values{}, header: http.Header{}}
	path := op.Path
	fields := map[string]any{}
	var body any
	hasBody := false
	for _, a := range op.args {
		v, ok := args[a.Name]
		if !ok || v == nil && a.In != "body" {
			if a.In == "path" {
				return nil, fmt.Errorf("missing path parameter %q", a.Name)
			}
			continue
		}
		switch a.In {
		case "path":
			// Escaped, a value cannot reach another path: "/" is %2F, and
			// the dot segments, which escaping leaves, are refused.
			s := scalar(v)
			if s == "" || s == "." || s == ".." {
				return nil, fmt.Errorf("path parameter %q may not be %q", a.Name, s)
			}
			path = strings.ReplaceAll(path, "{"+a.Param+"}", url.PathEscape(s))
		case "query":
			addQuery(r.query, a, v)
		case "header":
			r.header.Set(a.Param, scalar(v))
		case "cookie":
			r.cookies = append(r.cookies, &http.Cookie{Name: a.Param, Value: url.QueryEscape(scalar(v))})
		case "body":
			hasBody = true
			if a.Name == op.bodyArg {
				body = v
			} else {
				fields[a.Param] = v
			}
		}
	}
	r.path = path
	if !hasBody {
		return r, nil
	}
	if op.bodyArg == "" {
		body = fields
	}
	r.contentType = op.mediaType
	switch {
	case isJSON(op.mediaType):
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode body: %w", err)
		}
		r.body = b
	case op.mediaType == "application/x-www-form-urlencoded":
		form := url.Values{}
		if m, ok := body.(map[string]any); ok {
			for k, v := range m {
				addQuery(form, Argument{Param: k, Explode: true}, v)
			}
		} else {
			return nil, fmt.Errorf("a form body must be an object")
		}
		r.body = []byte(form.Encode())
	default:
		r.body = []byte(scalar(body))
	}
	return r, nil
}

// addQuery adds a query (or form) parameter: an array as repeated
// parameters when exploded, else comma-separated; an object as
// deepObject-style name[key] pairs.
func addQuery(q url.Values, a Argument, v any) {
	switch x := v.(type) {
	case []any:
		if a.Explode {
			for _, e := range x {
				q.Add(a.Param, scalar(e))
			}
			return
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = scalar(e)
		}
		q.Add(a.Param, strings.Join(parts, ","))
	case map[string]any:
		for k, e := range x {
			q.Add(a.Param+"["+k+"]", scalar(e))
		}
	default:
		q.Add(a.Param, scalar(v))
	}
}

// scalar writes a value as a parameter: strings as they are, numbers
// without exponents, anything else as JSON.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// toHTTP makes it a request to base (scheme, host and path prefix).
func (r *httpRequest) toHTTP(base *url.URL) (*http.Request, error) {
	u := *base
	ref, err := url.Parse(strings.TrimSuffix(base.EscapedPath(), "/") + r.path)
	if err != nil {
		return nil, fmt.Errorf("build URL: %w", err)
	}
	u.Path, u.RawPath = ref.Path, ref.RawPath
	u.RawQuery = r.query.Encode()
	req, err := http.NewRequest(r.method, u.String(), bodyReader(r.body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	r.setHeaders(req)
	if r.body != nil {
		body := r.body
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return req, nil
}

func bodyReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}

// setHeaders sets the request's headers, cookies and content type on req.
func (r *httpRequest) setHeaders(req *http.Request) {
	for k, v := range r.header {
		req.Header[k] = v
	}
	for _, c := range r.cookies {
		req.AddCookie(c)
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
}
