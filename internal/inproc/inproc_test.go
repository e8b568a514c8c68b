package inproc

import (
	"context"
	"testing"
)

func TestMark(t *testing.T) {
	if Is(context.Background()) {
		t.Error("an unmarked context is in-process")
	}
	if !Is(With(context.Background())) {
		t.Error("a marked context is not in-process")
	}
	type other struct{}
	if Is(context.WithValue(context.Background(), other{}, true)) {
		t.Error("another key's true value marks a context")
	}
}
