package specter

import (
	"reflect"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/params"
)

type flatForm struct {
	Deploy bool   `json:"deploy" description:"Deploy now?"`
	Reason string `json:"reason,omitempty"`
}

type nestedForm struct {
	Inner flatForm `json:"inner"`
}

func TestFormFor(t *testing.T) {
	s, err := formFor(reflect.TypeFor[flatForm]())
	if err != nil || len(s.Fields()) != 2 {
		t.Fatalf("a flatForm form: %v %v", s, err)
	}
	if again, _ := formFor(reflect.TypeFor[flatForm]()); again != s {
		t.Error("the form of a type is compiled again")
	}
	if _, err := formFor(reflect.TypeFor[nestedForm]()); err == nil || !strings.Contains(err.Error(), `"inner"`) {
		t.Errorf("a form with an object: %v", err)
	}
	if _, err := formFor(reflect.TypeFor[int]()); err == nil {
		t.Error("a form of no struct compiled")
	}
}

func TestCheckForm(t *testing.T) {
	if err := checkForm(nil); err == nil {
		t.Error("no schema passed")
	}
	s, err := params.New(params.String("name"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkForm(s); err != nil {
		t.Errorf("a flatForm schema: %v", err)
	}
}

func TestFormAnswerAndMode(t *testing.T) {
	for action, want := range map[string]bool{"accept": true, "decline": true, "cancel": true, "": false, "Accept": false} {
		if got := (&formAnswer{Action: action}).Valid(); got != want {
			t.Errorf("Valid(%q) = %v", action, got)
		}
	}
	if formMode("2025-06-18") != "" || formMode("2025-11-25") != "form" {
		t.Error("form mode by revision")
	}
}
