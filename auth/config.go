package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/rs/zerolog"
)

// Config configures JWT, NewVerifier and MountMetadata: it is the one
// place that states this server's authorization facts. Resource drives the
// token audience, the protected resource metadata document and the URL
// every challenge names, the router's 401 and 403 challenges included.
//
// Exactly one key source — Keys, JWKSURL or KeyFunc — is required, and so
// are Algorithms, Issuer and Resource: a verifier that guessed any of them
// would accept tokens meant for someone else. An app that verifies tokens
// it issues itself, rather than an OAuth authorization server's, sets
// InHouse, and then Issuer and Resource are optional.
type Config struct {
	// InHouse says the tokens are the app's own (its login signs them,
	// often HS256 with a secret of its own), not an OAuth authorization
	// server's. The MCP authorization specification's OAuth parts are then
	// off: no RFC 9728 protected resource metadata is needed, served
	// (MountMetadata refuses such a Config) or named in challenges, so an
	// MCP client cannot discover where to get a token and must be given
	// one (a header in its configuration). "iss" is checked only when
	// Issuer is set and "aud" only when Audience (or Resource) is set, and
	// neither needs to be an https URL. What stays: the signature with an
	// allowed algorithm, "exp" (required), "nbf", "iat", the
	// PrincipalClaim, and the MCP-shaped 401 (a Bearer challenge and a
	// JSON-RPC error body). AuthorizationServers, ResourceName and
	// ResourceDocumentation describe the metadata and must stay unset.
	// Default: false (OAuth 2.1, as the MCP specification has it).
	InHouse bool

	// Resource is this MCP server's resource identifier (RFC 8707,
	// RFC 9728): the URL of its MCP endpoint, such as
	// https://mcp.example.com/mcp, absolute https (http only on loopback
	// hosts) and without fragment. Tokens must name it in "aud" (see
	// Audience), the metadata document names it, and challenges point at
	// its metadata URL (see MetadataURL). Required, unless InHouse: then
	// it only sets the default Audience.
	Resource string
	// AuthorizationServers are the issuers listed in the metadata
	// document, where clients get tokens. Default: []string{Issuer}.
	AuthorizationServers []string
	// Scopes are the scopes this server understands: the metadata lists
	// them as scopes_supported, and refusals name them as those a client
	// should ask for. Default: none.
	Scopes []string
	// ResourceName is the human-readable name the metadata document gives
	// the server. Default: none.
	ResourceName string
	// ResourceDocumentation is the URL of documentation for developers,
	// in the metadata document. Default: none.
	ResourceDocumentation string

	// Skipper skips authentication for a request when it returns true; the
	// request then reaches the handler without claims or principal.
	// Default: nil (authenticate every request).
	Skipper func(*http.Request) bool

	// Keys are static verification keys by key ID (the "kid" token header).
	// The key under the empty ID "" is the default: it verifies tokens
	// without a kid and tokens whose kid is not in the map, so a single key
	// is map[string]any{"": key}. HMAC secrets are []byte (at least as long
	// as the hash, e.g. 32 bytes for HS256); RSA (2048 bits or more), ECDSA
	// and Ed25519 keys may be given as public or private keys, of which
	// only the public half is kept. Default: none.
	Keys map[string]any
	// JWKSURL is the authorization server's JWK Set (https, or http on a
	// loopback host). Keys are fetched once by NewVerifier, cached,
	// refreshed in the background every JWKSRefreshInterval and selected by
	// the token's kid; a kid not in the cache triggers one refresh, at most
	// once per JWKSRefreshLimit, so key rotation needs no restart. When the
	// endpoint is down the cached keys keep working; with nothing cached,
	// tokens are refused with 401. Default: none.
	JWKSURL string
	// KeyFunc looks the verification key up for a parsed, not yet verified
	// token, as in jwt.Parse. The key it returns must still suit the
	// token's algorithm. Default: none.
	KeyFunc jwt.Keyfunc

	// JWKSRefreshInterval is how often the JWK Set is fetched in the
	// background. Default: 1 hour.
	JWKSRefreshInterval time.Duration
	// JWKSRefreshLimit is the least time between two fetches caused by
	// tokens naming an unknown kid, so forged kids cannot hammer the
	// authorization server. Default: 5 minutes.
	JWKSRefreshLimit time.Duration
	// JWKSTimeout bounds each fetch of the JWK Set. Default: 10 seconds.
	JWKSTimeout time.Duration
	// JWKSClient fetches the JWK Set. Default: http.DefaultClient.
	JWKSClient *http.Client
	// JWKSErrorHandler receives the errors of background and unknown-kid
	// fetches (never a token). Default: an error line on Logger.
	JWKSErrorHandler func(error)
	// Logger receives the package's own log lines (a failed JWK Set
	// refresh, when JWKSErrorHandler is nil). Default: JSON lines on
	// stderr at info, like the router's; zerolog.Nop() silences it.
	Logger *zerolog.Logger
	// Context bounds the background JWK Set refresh: it stops when Context
	// is done or the Verifier is closed. JWT gives no access to its
	// Verifier, so pass a Context there to stop the refresh.
	// Default: context.Background().
	Context context.Context

	// Algorithms are the accepted signing algorithms ("RS256", "ES256",
	// "EdDSA", "HS256", ...). Required: the token's own "alg" header is
	// never trusted by itself. "none" is refused, and so is a list mixing
	// HMAC (HS*) with public-key algorithms, which would let a token be
	// "signed" with a public key used as an HMAC secret.
	Algorithms []string
	// Issuer must equal the token's "iss" claim. Required, unless
	// InHouse: then "iss" is checked only when Issuer is set.
	Issuer string
	// Audience is what the token's "aud" claim must contain, so that
	// tokens issued for other services are refused. Scheme and host
	// compare case-insensitively. Default: Resource, as RFC 8707 and the
	// MCP specification have it; set it only for an issuer that names the
	// server otherwise. InHouse with neither Audience nor Resource set
	// checks no "aud".
	Audience string
	// Leeway absorbs clock skew when checking "exp", "nbf" and "iat".
	// Default: 30 seconds; a negative value means no leeway.
	Leeway time.Duration
	// ScopeClaim names the claim holding the granted scopes, a
	// space-separated string or an array of strings. When the token lacks
	// it, "scp" (either form) is read instead. Default: "scope".
	ScopeClaim string
	// PrincipalClaim names the string claim that identifies the caller:
	// the principal's ID. Tokens without it are refused. Default: "sub".
	PrincipalClaim string
	// MaxTokenBytes is the longest token accepted; longer ones are refused
	// before any parsing. Default: 8192.
	MaxTokenBytes int

	// ErrorHandler answers refused requests instead of the default answer
	// (err.Respond), for example to log err first. Default: nil.
	ErrorHandler func(w http.ResponseWriter, r *http.Request, err *Error)
}

// Defaults of the Config fields that have one.
const (
	DefaultLeeway              = 30 * time.Second
	DefaultScopeClaim          = "scope"
	DefaultPrincipalClaim      = "sub"
	DefaultMaxTokenBytes       = 8192
	DefaultJWKSRefreshInterval = time.Hour
	DefaultJWKSRefreshLimit    = 5 * time.Minute
	DefaultJWKSTimeout         = 10 * time.Second
)

// withDefaults returns cfg with every unset field that has a default set.
func (cfg Config) withDefaults() Config {
	switch {
	case cfg.Leeway == 0:
		cfg.Leeway = DefaultLeeway
	case cfg.Leeway < 0:
		cfg.Leeway = 0
	}
	if cfg.ScopeClaim == "" {
		cfg.ScopeClaim = DefaultScopeClaim
	}
	if cfg.PrincipalClaim == "" {
		cfg.PrincipalClaim = DefaultPrincipalClaim
	}
	if cfg.MaxTokenBytes == 0 {
		cfg.MaxTokenBytes = DefaultMaxTokenBytes
	}
	if cfg.JWKSRefreshInterval == 0 {
		cfg.JWKSRefreshInterval = DefaultJWKSRefreshInterval
	}
	if cfg.JWKSRefreshLimit == 0 {
		cfg.JWKSRefreshLimit = DefaultJWKSRefreshLimit
	}
	if cfg.JWKSTimeout == 0 {
		cfg.JWKSTimeout = DefaultJWKSTimeout
	}
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	if cfg.Audience == "" {
		cfg.Audience = cfg.Resource
	}
	if cfg.Logger == nil {
		l := zerolog.New(os.Stderr).With().Timestamp().Logger().Level(zerolog.InfoLevel)
		cfg.Logger = &l
	}
	return cfg
}

// validate reports every mistake in cfg (after withDefaults) at once, so
// that one failed start shows them all.
func (cfg *Config) validate() error {
	var errs []error
	sources := 0
	for _, set := range []bool{cfg.Keys != nil, cfg.JWKSURL != "", cfg.KeyFunc != nil} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		errs = append(errs, fmt.Errorf("exactly one of Keys, JWKSURL and KeyFunc is required, got %d", sources))
	}
	if cfg.Keys != nil && len(cfg.Keys) == 0 {
		errs = append(errs, errors.New("Keys is empty"))
	}
	errs = append(errs, validateAlgorithms(cfg.Algorithms))
	if cfg.JWKSURL != "" {
		if err := checkURL(cfg.JWKSURL); err != nil {
			errs = append(errs, fmt.Errorf("JWKSURL: %w", err))
		}
		if slices.ContainsFunc(cfg.Algorithms, isHMAC) {
			errs = append(errs, errors.New("HMAC algorithms need Keys or KeyFunc: a JWK Set publishes public keys, never shared secrets"))
		}
	}
	if cfg.InHouse {
		errs = append(errs, cfg.inHouseProblems()...)
	} else {
		errs = append(errs, cfg.oauthProblems()...)
	}
	if cfg.MaxTokenBytes < 0 {
		errs = append(errs, fmt.Errorf("MaxTokenBytes is negative (%d)", cfg.MaxTokenBytes))
	}
	if cfg.JWKSRefreshInterval < 0 || cfg.JWKSRefreshLimit < 0 || cfg.JWKSTimeout < 0 {
		errs = append(errs, errors.New("JWKSRefreshInterval, JWKSRefreshLimit and JWKSTimeout must not be negative"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("auth: invalid Config: %w", err)
	}
	return nil
}

// oauthProblems reports what is wrong with the facts an OAuth resource
// server states: Issuer, Resource and the metadata document. Each field is
// named as the user set it: a missing Issuer is not reported again as the
// empty list of authorization servers it would have been the default of.
func (cfg *Config) oauthProblems() []error {
	var errs []error
	switch {
	case cfg.Issuer == "":
		errs = append(errs, errors.New("Issuer is required: set it to the \"iss\" of your authorization server's tokens, "+
			"or set InHouse for tokens your app issues itself"))
	case cfg.AuthorizationServers == nil:
		if err := checkURL(cfg.Issuer); err != nil {
			errs = append(errs, fmt.Errorf("Issuer: %w: the metadata names it as the authorization server "+
				"(set AuthorizationServers if that is elsewhere, or InHouse for tokens your app issues itself)", err))
		}
	}
	if cfg.Resource == "" {
		errs = append(errs, errors.New("Resource is required: set it to the URL of this server's MCP endpoint"))
	} else if err := checkURL(cfg.Resource); err != nil {
		errs = append(errs, fmt.Errorf("Resource: %w", err))
	}
	// The metadata document's other fields; Resource and a defaulted
	// authorization server are checked above.
	return append(errs, cfg.Metadata().problems(cfg.AuthorizationServers != nil)...)
}

// inHouseProblems reports the fields an InHouse Config must not set, and
// a Resource that cannot be an audience URL.
func (cfg *Config) inHouseProblems() []error {
	var errs []error
	for _, f := range [...]struct {
		name string
		set  bool
	}{
		{"AuthorizationServers", cfg.AuthorizationServers != nil},
		{"ResourceName", cfg.ResourceName != ""},
		{"ResourceDocumentation", cfg.ResourceDocumentation != ""},
	} {
		if f.set {
			errs = append(errs, fmt.Errorf("%s describes the OAuth protected resource metadata, which InHouse tokens do not have: leave it unset", f.name))
		}
	}
	if cfg.Resource != "" {
		if err := checkURL(cfg.Resource); err != nil {
			errs = append(errs, fmt.Errorf("Resource: %w", err))
		}
	}
	for _, s := range cfg.Scopes {
		if !validScope(s) {
			errs = append(errs, fmt.Errorf("Scopes: %q is not a valid scope token", s))
		}
	}
	return errs
}

// validateAlgorithms checks the allow-list: known algorithms only, never
// "none", and never HMAC beside public-key algorithms.
func validateAlgorithms(algs []string) error {
	if len(algs) == 0 {
		return errors.New(`Algorithms is required: list the signing algorithms your issuer uses, e.g. []string{"RS256"}`)
	}
	var errs []error
	for _, a := range algs {
		switch {
		case strings.EqualFold(a, "none"):
			errs = append(errs, errors.New(`Algorithms must not contain "none": unsigned tokens prove nothing`))
		case !knownAlgorithm(a):
			errs = append(errs, fmt.Errorf("Algorithms: unknown algorithm %q", a))
		}
	}
	if slices.ContainsFunc(algs, isHMAC) && slices.ContainsFunc(algs, func(a string) bool { return knownAlgorithm(a) && !isHMAC(a) }) {
		errs = append(errs, fmt.Errorf("Algorithms %v mix HMAC with public-key algorithms, which invites algorithm confusion: use one family", algs))
	}
	return errors.Join(errs...)
}

// validScope reports whether s is a scope token of RFC 6749 §3.3, so that
// it can be quoted in a challenge without escaping.
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < 0x21 || c == '"' || c == '\\' || c > 0x7e {
			return false
		}
	}
	return true
}
