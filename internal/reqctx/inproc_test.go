package reqctx

import (
	"context"
	"testing"
)

func TestMark(t *testing.T) {
	if InProcess(context.Background()) {
		t.Error("an unmarked context is in-process")
	}
	if !InProcess(WithInProcess(context.Background())) {
		t.Error("a marked context is not in-process")
	}
	type other struct{}
	if InProcess(context.WithValue(context.Background(), other{}, true)) {
		t.Error("another key's true value marks a context")
	}
}
