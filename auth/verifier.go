package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/rs/zerolog"
	"golang.org/x/time/rate"

	"github.com/specter-mcp/specter/internal/bearer"
)

// Verifier verifies access tokens against a Config. It is safe for
// concurrent use. A Verifier with a JWKSURL refreshes its keys in the
// background until Close is called or Config.Context is done.
type Verifier struct {
	cfg Config
	// metadataURL is where cfg.Resource's metadata is (MetadataURL),
	// named in every challenge.
	metadataURL string
	parser      *jwt.Parser
	keys        map[string]any  // static keys, public halves
	jwks        keyfunc.Keyfunc // JWK Set cache, when cfg.JWKSURL is set
	stop        context.CancelFunc
	once        sync.Once
}

// NewVerifier checks cfg and returns a Verifier for it. With a JWKSURL it
// fetches the key set once before returning; a failed fetch is reported
// to Config.JWKSErrorHandler, not returned, so that a server can start
// while its authorization server is briefly away.
func NewVerifier(cfg Config) (*Verifier, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	var metadataURL string // none for InHouse tokens: challenges name no metadata
	if !cfg.InHouse {
		var err error
		if metadataURL, err = MetadataURL(cfg.Resource); err != nil {
			return nil, fmt.Errorf("auth: invalid Config: %w", err) // unreachable: validate checked Resource
		}
	}
	checks := []jwt.ParserOption{
		jwt.WithValidMethods(cfg.Algorithms),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
	}
	if cfg.Issuer != "" { // always, unless InHouse
		checks = append(checks, jwt.WithIssuer(cfg.Issuer))
	}
	v := &Verifier{
		cfg:         cfg,
		metadataURL: metadataURL,
		stop:        func() {},
		parser:      jwt.NewParser(checks...),
	}
	switch {
	case cfg.Keys != nil:
		keys, err := staticKeys(cfg.Keys, cfg.Algorithms)
		if err != nil {
			return nil, fmt.Errorf("auth: invalid Config: %w", err)
		}
		v.keys = keys
	case cfg.JWKSURL != "":
		ctx, cancel := context.WithCancel(cfg.Context)
		jwks, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{cfg.JWKSURL}, keyfunc.Override{
			Client:      cfg.JWKSClient,
			HTTPTimeout: cfg.JWKSTimeout,
			// The unknown-kid refresh runs on the request's goroutine, waiting
			// for the limiter and fetching within this bound; a limiter that
			// is further away than that refuses at once.
			RateLimitWaitMax:        cfg.JWKSTimeout,
			RefreshErrorHandlerFunc: jwksErrorHandler(cfg.JWKSErrorHandler, *cfg.Logger),
			RefreshInterval:         cfg.JWKSRefreshInterval,
			RefreshUnknownKID:       rate.NewLimiter(rate.Every(cfg.JWKSRefreshLimit), 1),
		})
		if err != nil {
			cancel()
			return nil, fmt.Errorf("auth: JWKS %s: %w", cfg.JWKSURL, err)
		}
		v.jwks, v.stop = jwks, cancel
	}
	return v, nil
}

// jwksErrorHandler adapts Config.JWKSErrorHandler to keyfunc's per-URL
// handler, logging to log by default so an outage is never silent.
func jwksErrorHandler(h func(error), log zerolog.Logger) func(string) func(context.Context, error) {
	return func(u string) func(context.Context, error) {
		return func(_ context.Context, err error) {
			err = fmt.Errorf("auth: refreshing JWKS %s: %w", u, err)
			if h != nil {
				h(err)
				return
			}
			log.Error().Err(err).Msg("auth: JWKS refresh failed")
		}
	}
}

// Close stops the background JWK Set refresh. It is safe to call more
// than once and always returns nil.
func (v *Verifier) Close() error {
	v.once.Do(v.stop)
	return nil
}

// Verify checks rawToken (the bare token, without "Bearer ") and returns
// its claims. Any failure is an *Error with status 401 and code
// invalid_token, whose Err keeps the cause for errors.Is (for example
// jwt.ErrTokenExpired).
func (v *Verifier) Verify(ctx context.Context, rawToken string) (*Claims, error) {
	c, err := v.verify(ctx, rawToken)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (v *Verifier) verify(ctx context.Context, rawToken string) (*Claims, *Error) {
	if len(rawToken) > v.cfg.MaxTokenBytes {
		return nil, v.invalid("token too large", fmt.Errorf("token of %d bytes exceeds MaxTokenBytes (%d)", len(rawToken), v.cfg.MaxTokenBytes))
	}
	raw := jwt.MapClaims{}
	if _, err := v.parser.ParseWithClaims(rawToken, raw, v.keyfunc(ctx)); err != nil {
		return nil, v.invalid(reason(err, raw), err)
	}
	return v.claims(raw)
}

// claims checks what golang-jwt does not — the audience and the principal
// claim — and builds the typed Claims of a verified token.
func (v *Verifier) claims(raw jwt.MapClaims) (*Claims, *Error) {
	aud, err := raw.GetAudience()
	if err != nil {
		return nil, v.invalid(`token "aud" claim is neither a string nor an array of strings`, err)
	}
	if v.cfg.Audience != "" { // always, unless InHouse
		switch {
		case len(aud) == 0:
			return nil, v.invalid(`token lacks the "aud" claim`, fmt.Errorf("%w: aud", jwt.ErrTokenRequiredClaimMissing))
		case !slices.ContainsFunc(aud, func(a string) bool { return sameResource(a, v.cfg.Audience) }):
			return nil, v.invalid(`token "aud" claim does not name this server`, jwt.ErrTokenInvalidAudience)
		}
	}
	id, isString := raw[v.cfg.PrincipalClaim].(string)
	switch {
	case raw[v.cfg.PrincipalClaim] == nil:
		return nil, v.invalid(fmt.Sprintf("token lacks the %q claim", v.cfg.PrincipalClaim),
			fmt.Errorf("%w: %s", jwt.ErrTokenRequiredClaimMissing, v.cfg.PrincipalClaim))
	case !isString:
		return nil, v.invalid(fmt.Sprintf("token %q claim has the wrong type", v.cfg.PrincipalClaim),
			fmt.Errorf("%w: %s", jwt.ErrInvalidType, v.cfg.PrincipalClaim))
	case id == "":
		return nil, v.invalid(fmt.Sprintf("token %q claim is empty", v.cfg.PrincipalClaim),
			fmt.Errorf("%w: %s", jwt.ErrTokenRequiredClaimMissing, v.cfg.PrincipalClaim))
	}
	scope, err := scopes(raw, v.cfg.ScopeClaim)
	if err != nil {
		return nil, v.invalid(fmt.Sprintf("token %q claim is neither a string nor an array of strings", v.cfg.ScopeClaim), err)
	}
	// golang-jwt has checked these claims' types already.
	sub, _ := raw.GetSubject()
	iss, _ := raw.GetIssuer()
	c := &Claims{Subject: sub, Issuer: iss, Audience: aud, Scopes: scope, Raw: raw}
	if exp, _ := raw.GetExpirationTime(); exp != nil {
		c.ExpiresAt = exp.Time
	}
	return c, nil
}

// sameResource compares two resource URIs exactly, except that scheme and
// host are case-insensitive (the MCP specification asks servers to accept
// uppercase there).
func sameResource(a, b string) bool {
	if a == b {
		return true
	}
	ua, err := url.Parse(a)
	if err != nil || ua.Scheme == "" || ua.Host == "" {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		ua.User.String() == ub.User.String() && ua.RawPath == ub.RawPath && ua.Path == ub.Path &&
		ua.RawQuery == ub.RawQuery && ua.Fragment == ub.Fragment && ua.Opaque == ub.Opaque
}

// Errors of key lookup, before golang-jwt checks the signature.
var (
	errUnknownKey = errors.New("no key for the token's kid")
	errNoKeys     = errors.New("no signing keys are cached: the JWKS endpoint has not been reached yet")
	errCrit       = errors.New(`token has a "crit" header naming extensions this server does not understand`)
)

// keyfunc finds the key for a token and makes sure it suits the token's
// algorithm (golang-jwt has already checked the algorithm against
// Config.Algorithms). ctx is the request's: an unknown kid's JWK Set
// fetch ends when the client goes away.
func (v *Verifier) keyfunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		// RFC 7515 §4.1.11: extensions listed in crit must be understood.
		if _, ok := t.Header["crit"]; ok {
			return nil, errCrit
		}
		key, err := v.lookup(ctx, t)
		if err != nil {
			return nil, err
		}
		return keyFor(t.Method.Alg(), key)
	}
}

func (v *Verifier) lookup(ctx context.Context, t *jwt.Token) (any, error) {
	switch {
	case v.keys != nil:
		kid, _ := t.Header["kid"].(string)
		if key, ok := v.keys[kid]; ok {
			return key, nil
		}
		if key, ok := v.keys[""]; ok {
			return key, nil
		}
		return nil, errUnknownKey
	case v.jwks != nil:
		key, err := v.jwks.KeyfuncCtx(ctx)(t)
		if err == nil {
			if set, ok := key.(jwt.VerificationKeySet); !ok || len(set.Keys) > 0 {
				return key, nil
			}
		}
		if cached, _ := v.jwks.Storage().KeyReadAll(ctx); len(cached) == 0 {
			return nil, errNoKeys
		}
		return nil, errors.Join(errUnknownKey, err)
	default:
		return v.cfg.KeyFunc(t)
	}
}

// reason maps a golang-jwt error to a short description for the client:
// what is wrong with the token, naming the claim when one is missing or
// wrong, never the detail of how it was checked. raw holds the token's
// claims as decoded (empty when the token did not decode).
func reason(err error, raw jwt.MapClaims) string {
	switch {
	case errors.Is(err, errNoKeys):
		return "signing keys unavailable, try again later"
	case errors.Is(err, errUnknownKey), errors.Is(err, errKeyMismatch):
		return "token signing key not recognized"
	case errors.Is(err, errCrit):
		return "token uses unsupported extensions"
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "malformed token"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "invalid token signature"
	case errors.Is(err, jwt.ErrInvalidType):
		if name := mistypedClaim(raw); name != "" {
			return fmt.Sprintf("token %q claim has the wrong type", name)
		}
		return "malformed token claims"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		// golang-jwt requires "exp" always and "iss" when Issuer is set.
		for _, name := range [...]string{"exp", "iss"} {
			if _, ok := raw[name]; !ok {
				return fmt.Sprintf("token lacks the %q claim", name)
			}
		}
		return "token lacks a required claim"
	case errors.Is(err, jwt.ErrTokenExpired):
		return "token expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return "token not valid yet"
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "token issued in the future"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return `token "iss" claim is not the accepted issuer`
	}
	return "invalid token"
}

// mistypedClaim names the first registered claim of raw whose JSON type
// golang-jwt refuses: a time that is not a number, an "iss" or "sub" that
// is not a string, an "aud" that is neither a string nor strings.
func mistypedClaim(raw jwt.MapClaims) string {
	for _, name := range [...]string{"exp", "nbf", "iat"} {
		switch raw[name].(type) {
		case nil, float64, json.Number:
		default:
			return name
		}
	}
	for _, name := range [...]string{"iss", "sub"} {
		switch raw[name].(type) {
		case nil, string:
		default:
			return name
		}
	}
	if _, err := raw.GetAudience(); err != nil {
		return "aud"
	}
	return ""
}

// invalid returns the 401 invalid_token error with the configured
// challenge.
func (v *Verifier) invalid(description string, err error) *Error {
	return v.refusal(http.StatusUnauthorized, CodeInvalidToken, description, err)
}

func (v *Verifier) refusal(status int, code, description string, err error) *Error {
	return &Error{
		Status:      status,
		Code:        code,
		Description: description,
		Challenge:   bearer.Challenge(v.metadataURL, v.cfg.Scopes, code),
		Err:         err,
	}
}
