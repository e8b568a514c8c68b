package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// A Store keeps the tokens and client registrations a Transport obtains,
// so that they outlive it: a command-line tool that keeps them authorizes
// once, not on every run. Tokens are kept per authorization server
// (issuer) and resource (the MCP server), registrations per issuer, so
// that nothing obtained from one server is ever offered to another.
// FileStore keeps them in a file; a keychain or a database can be a Store
// too. Load methods return nil and no error when they hold nothing.
type Store interface {
	LoadToken(ctx context.Context, issuer, resource string) (*Token, error)
	SaveToken(ctx context.Context, issuer, resource string, tok *Token) error
	LoadClient(ctx context.Context, issuer string) (*Client, error)
	SaveClient(ctx context.Context, issuer string, c *Client) error
}

// FileStore is a Store in one JSON file that only its owner may read and
// write (0600, in a directory created 0700), for command-line tools; for
// example filepath.Join(os.UserConfigDir(), "mytool", "mcp-auth.json").
// It refuses a file that others may read, as ssh refuses such keys. It
// is safe for concurrent use, and writes are atomic (a new file renamed
// over the old one), so that a crash leaves the old file whole.
type FileStore struct {
	path string
	mu   sync.Mutex
}

// NewFileStore returns a FileStore at path; the file is created by the
// first save.
func NewFileStore(path string) *FileStore { return &FileStore{path: path} }

// storeFile is the file's content.
type storeFile struct {
	// Tokens are by issuer, then by resource.
	Tokens  map[string]map[string]storedToken `json:"tokens,omitempty"`
	Clients map[string]storedClient           `json:"clients,omitempty"`
}

type storedToken struct {
	Token
	Expiry time.Time `json:"expiry,omitzero"`
}

type storedClient struct {
	ID         string `json:"client_id"`
	Secret     string `json:"client_secret,omitempty"`
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

// LoadToken returns the token held for resource from issuer.
func (s *FileStore) LoadToken(_ context.Context, issuer, resource string) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	st, ok := f.Tokens[issuer][resource]
	if !ok {
		return nil, nil
	}
	tok := st.Token
	tok.Expiry = st.Expiry
	return &tok, nil
}

// SaveToken keeps tok for resource from issuer, in place of any before.
func (s *FileStore) SaveToken(_ context.Context, issuer, resource string, tok *Token) error {
	return s.update(func(f *storeFile) {
		if f.Tokens == nil {
			f.Tokens = map[string]map[string]storedToken{}
		}
		if f.Tokens[issuer] == nil {
			f.Tokens[issuer] = map[string]storedToken{}
		}
		f.Tokens[issuer][resource] = storedToken{Token: *tok, Expiry: tok.Expiry}
	})
}

// LoadClient returns the client's registration with issuer.
func (s *FileStore) LoadClient(_ context.Context, issuer string) (*Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	sc, ok := f.Clients[issuer]
	if !ok {
		return nil, nil
	}
	return &Client{ID: sc.ID, Secret: sc.Secret, AuthMethod: sc.AuthMethod}, nil
}

// SaveClient keeps the client's registration with issuer. A client that
// signs with a key is configured, not registered, and is not kept.
func (s *FileStore) SaveClient(_ context.Context, issuer string, c *Client) error {
	if c.Key != nil {
		return errors.New("oauth: FileStore keeps no signing keys")
	}
	return s.update(func(f *storeFile) {
		if f.Clients == nil {
			f.Clients = map[string]storedClient{}
		}
		f.Clients[issuer] = storedClient{ID: c.ID, Secret: c.Secret, AuthMethod: c.AuthMethod}
	})
}

// read returns the file's content, empty when there is no file. Called
// with s.mu held.
func (s *FileStore) read() (*storeFile, error) {
	var f storeFile
	fh, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	} else if perm := fi.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("oauth: token store %s may be read by others (mode %#o): make it 0600", s.path, perm)
	}
	if err := json.NewDecoder(fh).Decode(&f); err != nil {
		return nil, fmt.Errorf("oauth: token store %s: %w", s.path, err)
	}
	return &f, nil
}

// update changes the file's content and writes it anew.
func (s *FileStore) update(change func(*storeFile)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	change(f)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tokens-*") // created 0600
	if err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return nil
}
