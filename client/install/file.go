package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Install writes s into the client's configuration file in layout l,
// creating the file and its directory if need be. Every other member of
// the file, and every other server, stays as it was and where it was; a
// server of the same name is replaced. An existing file is first copied
// to path + ".bak" (backup is "" when there was none), and the new one
// replaces it only once written whole.
func (c *Client) Install(l Layout, s Server) (path, backup string, err error) {
	entry, err := c.Entry(s)
	if err != nil {
		return "", "", err
	}
	path = c.Path(l)
	old, err := os.ReadFile(path)
	mode := fs.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return "", "", fmt.Errorf("install: %w", err)
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	data, err := merge(old, c.Key, s.Name, entry)
	if err != nil {
		return "", "", fmt.Errorf("install: %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", "", fmt.Errorf("install: %w", err)
	}
	if old != nil {
		backup = path + ".bak"
		if err := os.WriteFile(backup, old, mode); err != nil {
			return "", "", fmt.Errorf("install: backing up: %w", err)
		}
	}
	if err := writeFile(path, data, mode); err != nil {
		return "", "", fmt.Errorf("install: %w", err)
	}
	return path, backup, nil
}

// writeFile replaces path with data through a temporary file in the
// same directory, so that a reader never sees half a file.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// merge sets file[key][name] = entry in the JSON object file, keeping
// the order and the contents of everything else.
func merge(file []byte, key, name string, entry any) ([]byte, error) {
	var top object
	if len(bytes.TrimSpace(file)) > 0 {
		if err := top.UnmarshalJSON(file); err != nil {
			return nil, err
		}
	}
	var servers object
	if raw, ok := top.get(key); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := servers.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("%q: %w", key, err)
		}
	}
	e, err := json.Marshal(entry)
	if err != nil {
		return nil, err
	}
	servers.set(name, e)
	raw, err := servers.MarshalJSON()
	if err != nil {
		return nil, err
	}
	top.set(key, raw)
	out, err := top.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, out, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// object is a JSON object whose members keep their order.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

func (o *object) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	*o = nil
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		o.set(t.(string), v)
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("data after the JSON object")
	}
	return nil
}

func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces key's value in place, or appends it.
func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}
