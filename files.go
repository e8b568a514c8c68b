package specter

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"

	"github.com/specter-mcp/specter/mcp"
)

// DefaultMaxResourceFile is how many bytes of a file a resource may
// return unless MaxResourceFile says otherwise: 8 MiB, which is about
// 11 MiB once base64 encoded in a blob.
const DefaultMaxResourceFile = 8 << 20

// MaxResourceFile bounds the content a resource handler may return as a
// file or reader (see Router.Resource). A larger one fails the read with
// an internal error that names the limit, and the error reporter gets
// the resource's URI.
func MaxResourceFile(n int64) RouterOption {
	return routerOption(func(r *Router) { r.cfg.maxFile = n })
}

// FSFile is a file in fsys for a resource handler to reply with:
//
//	return specter.Reply(specter.FSFile(docs, "guide/"+p.String("page")+".md"))
//
// The file is opened when the reply is shaped, and read like any other
// file a resource replies with. Open names under a root you control:
// fs.FS rejects "..", and template variables never hold "/" or "..".
func FSFile(fsys fs.FS, name string) FileRef { return FileRef{fsys: fsys, name: name} }

// FileRef names a file in an fs.FS; FSFile makes one.
type FileRef struct {
	fsys fs.FS
	name string
}

// fileReply reads a resource reply that is a file or a reader (an
// FSFile, an fs.File, an *os.File, any io.Reader) into contents for uri,
// closing it if it can be closed. Its MIME type is mimeType when the
// declaration sets one, otherwise detected from the content, refined by
// the file's extension for plain text; text types give text contents and
// the rest a base64 blob. ok is false for any other reply.
func fileReply(v any, uri, mimeType string, limit int64) (c mcp.ResourceContents, ok bool, err error) {
	var (
		r    io.Reader
		name string
	)
	switch x := v.(type) {
	case FileRef:
		if x.fsys == nil {
			return c, true, errors.New("specter: FSFile with a nil fs.FS")
		}
		f, err := x.fsys.Open(x.name)
		if err != nil {
			return c, true, fmt.Errorf("resource %s: %w", uri, err)
		}
		r, name = f, x.name
	case *FileRef:
		if x == nil {
			return c, false, nil
		}
		return fileReply(*x, uri, mimeType, limit)
	case io.Reader:
		r = x
	default:
		return c, false, nil
	}
	if cl, isCloser := r.(io.Closer); isCloser {
		defer cl.Close()
	}
	if f, isFile := r.(fs.File); isFile {
		if st, err := f.Stat(); err == nil {
			if st.IsDir() {
				return c, true, fmt.Errorf("resource %s: %s is a directory", uri, st.Name())
			}
			name = or(name, st.Name())
		}
	}
	if limit <= 0 {
		limit = DefaultMaxResourceFile
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return c, true, fmt.Errorf("resource %s: reading %s: %w", uri, or(name, "its content"), err)
	}
	if int64(len(data)) > limit {
		return c, true, fmt.Errorf("resource %s: the file is larger than MaxResourceFile (%d bytes)", uri, limit)
	}
	typ, text := detectType(data, name)
	if mimeType != "" {
		typ = mimeType
	}
	if text && utf8.Valid(data) {
		return mcp.TextResource(uri, typ, string(data)), true, nil
	}
	return mcp.BlobResource(uri, typ, base64.StdEncoding.EncodeToString(data)), true, nil
}

// detectType returns the MIME type of data, from its content and, when
// the content says only "text", from the extension of name, and whether
// it is text.
func detectType(data []byte, name string) (string, bool) {
	m := mimetype.Detect(data)
	text := false
	for p := m; p != nil; p = p.Parent() {
		if p.Is("text/plain") {
			text = true
			break
		}
	}
	typ := m.String()
	if text && m.Is("text/plain") && name != "" {
		if byExt := mime.TypeByExtension(path.Ext(name)); byExt != "" {
			typ = byExt
			text = strings.HasPrefix(byExt, "text/") || strings.Contains(byExt, "json") || strings.Contains(byExt, "xml") ||
				strings.Contains(byExt, "javascript")
		}
	}
	return typ, text
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// fileResult replaces a reply that is a file or a reader with its
// contents.
func (r *Router) fileResult(d *declaration, uri string, res Result) Result {
	if res.kind != resultReply {
		return res
	}
	c, ok, err := fileReply(res.value, uri, d.mimeType, r.cfg.maxFile)
	switch {
	case !ok:
		return res
	case err != nil:
		return Error(err)
	}
	return Reply(c)
}

// templateParams returns the template variables of uri, typed and checked
// where the declaration declares them as params.
func (d *declaration) templateParams(uri string) (Params, error) {
	vals, _ := d.pattern.Match(uri)
	if len(d.fields) == 0 {
		return Params(vals), nil
	}
	args := make(map[string]any, len(vals))
	for k, v := range vals {
		// "42" becomes the JSON number 42 for an integer param; a value
		// that is no JSON literal stays a string and fails as one.
		if s, isString := v.(string); isString && d.typedVars[k] && json.Valid([]byte(s)) {
			v = json.RawMessage(s)
		}
		args[k] = v
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("resource %s: %w", uri, err)
	}
	p, err := d.schema.Validate(raw)
	if err != nil {
		return nil, err
	}
	for k, v := range vals {
		if _, declared := p[k]; !declared {
			p[k] = v // a variable the params leave undeclared stays a string
		}
	}
	return p, nil
}

// Size gives a resource with a fixed URI its size in bytes, which
// resources/list reports so that a client can decide before reading.
func Size(bytes int64) DeclOption {
	return declOption(func(d *declaration) { d.size = &bytes })
}

// ResourceAnnotations sets a resource's or template's annotations: the
// audience it is for, its priority from 0 to 1, and when it last changed
// (an ISO 8601 time).
func ResourceAnnotations(a mcp.Annotations) DeclOption {
	return declOption(func(d *declaration) { d.resAnn = &a })
}
