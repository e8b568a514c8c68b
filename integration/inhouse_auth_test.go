package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	echojwt "github.com/labstack/echo-jwt/v4"
	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/auth"
	"github.com/specter-mcp/specter/direct"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/principal"
	"github.com/specter-mcp/specter/stdio"
)

// quietLog keeps auth's and stdio's own log lines out of test output.
var quietLog = zerolog.Nop()

// The notes app of these tests signs its own tokens at login: HS256 with
// a secret of its own, claims sub and exp (and iat), no iss, no aud.
var notesSecret = []byte("the notes app's own HS256 secret, 32+ bytes")

// notesToken signs a token of the notes app for sub, valid until exp;
// edits change its claims.
func notesToken(t testing.TB, secret []byte, sub string, exp time.Time, edits ...func(jwt.MapClaims)) string {
	t.Helper()
	c := jwt.MapClaims{"sub": sub, "iat": time.Now().Unix(), "exp": exp.Unix()}
	for _, e := range edits {
		e(c)
	}
	return authSign(t, jwt.SigningMethodHS256, secret, "", c)
}

// notesAuth is one way the notes app authenticates its MCP endpoint, and
// the messages its refusals carry.
type notesAuth struct {
	name string
	mw   echo.MiddlewareFunc
	// The JSON-RPC error messages of a request without a token, with an
	// expired one, and with one that has no "sub".
	noToken, expired, noSubject string
}

func notesAuths() []notesAuth {
	return []notesAuth{{
		name: "auth.JWT InHouse",
		mw: auth.JWT(auth.Config{InHouse: true, Keys: map[string]any{"": notesSecret}, Algorithms: []string{"HS256"},
			Logger: &quietLog}),
		noToken:   "Unauthorized: a bearer token is required",
		expired:   "Unauthorized: token expired",
		noSubject: `Unauthorized: token lacks the "sub" claim`,
	}, {
		// The app's existing echo-jwt middleware, bridged.
		name: "auth.Bridge over echo-jwt",
		mw: auth.Bridge(echojwt.WithConfig(echojwt.Config{SigningKey: notesSecret}), func(c echo.Context) (*principal.Principal, error) {
			token, ok := c.Get("user").(*jwt.Token)
			if !ok {
				return nil, errors.New("no token")
			}
			sub, err := token.Claims.GetSubject()
			if err != nil || sub == "" {
				return nil, errors.New(`token lacks the "sub" claim`)
			}
			return &principal.Principal{ID: sub}, nil
		}),
		noToken:   "Unauthorized: missing or malformed jwt",
		expired:   "Unauthorized: invalid or expired jwt",
		noSubject: `Unauthorized: token lacks the "sub" claim`,
	}}
}

// newNotesApp is the notes app: a REST route, and MCP behind mw on the
// /mcp group, with a connect that wants a caller and a whoami tool. Its
// router shuts down when the test ends.
func newNotesApp(t *testing.T, mw echo.MiddlewareFunc) *echo.Echo {
	r := specter.NewRouter("notes", "1.0.0", quiet)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	r.Connect(func(c *specter.Context) error {
		if c.Caller() == nil {
			return specter.Unauthorized("log in first")
		}
		return nil
	})
	r.Tool("whoami", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.Reply(c.Caller().ID)
	}, specter.Description("Who is calling"))
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/notes", func(c echo.Context) error { return c.JSON(http.StatusOK, []string{"buy milk"}) })
	r.Mount(e.Group("/mcp", mw))
	return e
}

// TestInHouseTokens runs an app that signs its own HS256 tokens (no iss,
// no aud) behind auth.JWT's InHouse mode and behind auth.Bridge over
// echo-jwt: a valid token reaches the tools as the caller in both eras,
// and every refusal is MCP-shaped — 401, a Bearer challenge and a
// JSON-RPC error body naming what is wrong — in both eras and over stdio.
func TestInHouseTokens(t *testing.T) {
	for _, a := range notesAuths() {
		t.Run(a.name, func(t *testing.T) {
			srv := httptest.NewServer(newNotesApp(t, a.mw))
			t.Cleanup(srv.Close)
			url := srv.URL + "/mcp"
			valid := notesToken(t, notesSecret, "ada", time.Now().Add(time.Hour))

			session := mcptest.NewClient(url)
			session.Header.Set("Authorization", "Bearer "+valid)
			if _, err := session.Initialize(ctx(t), mcp.LatestSessionVersion); err != nil {
				t.Fatalf("initialize with the app's token: %v", err)
			}
			stateless := mcptest.NewStatelessClient(url)
			stateless.Header.Set("Authorization", "Bearer "+valid)
			for era, c := range map[string]mcptest.Caller{"session": session, "2026-07-28": stateless} {
				if res, _, err := c.CallTool(ctx(t), "whoami", nil); err != nil || text(t, res) != "ada" {
					t.Errorf("%s: whoami with the app's token: %+v %v", era, res, err)
				}
			}

			refusals := []struct {
				name, authorization, challenge, message string
			}{
				{"no token", "", "Bearer", a.noToken},
				{"expired", "Bearer " + notesToken(t, notesSecret, "ada", time.Now().Add(-time.Hour)), `Bearer error="invalid_token"`, a.expired},
				{"no subject", "Bearer " + notesToken(t, notesSecret, "", time.Now().Add(time.Hour), func(c jwt.MapClaims) { delete(c, "sub") }),
					`Bearer error="invalid_token"`, a.noSubject},
			}
			for _, rf := range refusals {
				want := `{"jsonrpc":"2.0","error":{"code":-32600,"message":` + mustJSON(rf.message) + `}}`
				for era, req := range notesRequests(t, url, rf.authorization) {
					resp, err := srv.Client().Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != rf.challenge ||
						strings.TrimSpace(string(body)) != want {
						t.Errorf("%s, %s: %d, WWW-Authenticate %q, body %s; want 401, %q, %s",
							rf.name, era, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, rf.challenge, want)
					}
				}
				// Over stdio the refusal reaches the client as the JSON-RPC
				// error of its request, in both eras.
				for era, line := range map[string]string{"session": authInitialize, "2026-07-28": authStatelessDiscover} {
					if got := notesStdio(t, a.mw, rf.authorization, line); got != `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":`+mustJSON(rf.message)+`}}` {
						t.Errorf("%s over stdio, %s: %s; want the error %q", rf.name, era, got, rf.message)
					}
				}
			}
			// The app's own routes are untouched.
			if resp, err := srv.Client().Get(srv.URL + "/notes"); err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("GET /notes: %v %v", resp, err)
			} else {
				resp.Body.Close()
			}
		})
	}
}

// notesRequests returns, for each era, the request that opens a
// conversation (initialize; server/discover) with authorization.
func notesRequests(t *testing.T, url, authorization string) map[string]*http.Request {
	t.Helper()
	out := map[string]*http.Request{}
	for era, body := range map[string]string{"session": authInitialize, "2026-07-28": authStatelessDiscover} {
		req, err := http.NewRequestWithContext(ctx(t), http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if era != "session" {
			req.Header = authStatelessHeader(req.Header)
		}
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		out[era] = req
	}
	return out
}

// notesStdio serves the notes app over stdio with authorization as the
// connection's header, sends line and returns the line answering it.
func notesStdio(t *testing.T, mw echo.MiddlewareFunc, authorization, line string) string {
	t.Helper()
	h := http.Header{}
	if authorization != "" {
		h.Set("Authorization", authorization)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := &stdio.Server{Handler: newNotesApp(t, mw), Conn: direct.Config{Path: "/mcp", Header: h}, Log: quietLog}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
	if _, err := fmt.Fprintln(inW, line); err != nil {
		t.Fatal(err)
	}
	answer := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(outR)
		s.Buffer(nil, 1<<20)
		if s.Scan() {
			answer <- s.Text()
		}
		close(answer)
		_, _ = io.Copy(io.Discard, outR)
	}()
	var got string
	select {
	case got = <-answer:
	case <-testCtx(t).Done():
		t.Fatal("no answer over stdio")
	}
	inW.Close() // EOF: the server ends
	if err := <-served; err != nil {
		t.Errorf("stdio server: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		t.Fatalf("stdio answer %q: %v", got, err)
	}
	return got
}
