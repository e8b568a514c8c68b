package elicitform

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/params"
)

type flat struct {
	Name string `json:"name" validate:"required"`
	Age  int    `json:"age,omitempty"`
}

type nested struct {
	Address struct {
		City string `json:"city"`
	} `json:"address"`
}

func TestForCompilesOnceAndKeepsTheSchema(t *testing.T) {
	a, err := For(reflect.TypeFor[flat]())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := For(reflect.TypeFor[flat]())
	if a != b {
		t.Error("the schema of a type is compiled again on its second use")
	}
	if got := len(a.Fields()); got != 2 {
		t.Errorf("fields %d, want 2", got)
	}
}

func TestForRefusesObjectFieldsAndKeepsTheError(t *testing.T) {
	_, err := For(reflect.TypeFor[nested]())
	if err == nil || !strings.Contains(err.Error(), `field "address" has type "object"`) || !strings.Contains(err.Error(), "Elicit[elicitform.nested]") {
		t.Fatalf("err = %v", err)
	}
	if _, again := For(reflect.TypeFor[nested]()); again == nil || again.Error() != err.Error() {
		t.Errorf("second use: %v", again)
	}
}

func TestCheck(t *testing.T) {
	if err := Check(nil); err == nil {
		t.Error("a nil schema passes")
	}
	if err := Check(params.Must(params.New(params.String("a")))); err != nil {
		t.Error(err)
	}
}

func TestAnswerErrorWraps(t *testing.T) {
	base := errors.New("bad")
	if err := AnswerError(base); !errors.Is(err, base) || !strings.Contains(err.Error(), "does not match what was asked") {
		t.Errorf("%v", err)
	}
}
