package specter

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestFileReplyEdges(t *testing.T) {
	fsys := fstest.MapFS{
		"dir/a.txt":  {Data: []byte("a")},
		"latin1.txt": {Data: []byte("caf\xe9 au lait, plain text otherwise")},
		"style.css":  {Data: []byte("body { color: red }")},
	}
	if _, ok, err := fileReply(FSFile(fsys, "dir"), "app://d", "", 0); !ok || err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: ok %v, err %v", ok, err)
	}
	c, _, err := fileReply(FSFile(fsys, "latin1.txt"), "app://l", "", 0)
	if err != nil || c.Blob == nil || c.Text != nil {
		t.Errorf("text that is not UTF-8 must be a blob: %+v %v", c, err)
	}
	c, _, err = fileReply(FSFile(fsys, "style.css"), "app://s", "", 0)
	if err != nil || c.Text == nil || c.MIMEType != "text/css; charset=utf-8" {
		t.Errorf("plain text refined by its extension: %+v %v", c, err)
	}
	if _, ok, err := fileReply(FSFile(nil, "x"), "app://n", "", 0); !ok || err == nil {
		t.Errorf("a nil fs.FS: ok %v, err %v", ok, err)
	}
	if _, ok, _ := fileReply(map[string]any{}, "app://m", "", 0); ok {
		t.Error("a map is no file")
	}
}
