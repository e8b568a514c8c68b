package form

import (
	"reflect"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/params"
)

type flat struct {
	Deploy bool   `json:"deploy" description:"Deploy now?"`
	Reason string `json:"reason,omitempty"`
}

type nested struct {
	Inner flat `json:"inner"`
}

func TestFor(t *testing.T) {
	s, err := For(reflect.TypeFor[flat]())
	if err != nil || len(s.Fields()) != 2 {
		t.Fatalf("a flat form: %v %v", s, err)
	}
	if again, _ := For(reflect.TypeFor[flat]()); again != s {
		t.Error("the form of a type is compiled again")
	}
	if _, err := For(reflect.TypeFor[nested]()); err == nil || !strings.Contains(err.Error(), `"inner"`) {
		t.Errorf("a form with an object: %v", err)
	}
	if _, err := For(reflect.TypeFor[int]()); err == nil {
		t.Error("a form of no struct compiled")
	}
}

func TestCheck(t *testing.T) {
	if err := Check(nil); err == nil {
		t.Error("no schema passed")
	}
	s, err := params.New(params.String("name"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(s); err != nil {
		t.Errorf("a flat schema: %v", err)
	}
}

func TestAnswerAndMode(t *testing.T) {
	for action, want := range map[string]bool{"accept": true, "decline": true, "cancel": true, "": false, "Accept": false} {
		if got := (&Answer{Action: action}).Valid(); got != want {
			t.Errorf("Valid(%q) = %v", action, got)
		}
	}
	if Mode("2025-06-18") != "" || Mode("2025-11-25") != "form" {
		t.Error("form mode by revision")
	}
}
