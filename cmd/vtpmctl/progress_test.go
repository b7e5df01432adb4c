package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// TestNoProgressInPipes: a writer that is not a terminal gets nothing.
func TestNoProgressInPipes(t *testing.T) {
	var b bytes.Buffer
	ctx := withProgress(context.Background(), &b, "working")
	parallel.Do(ctx, 10, 2, func(context.Context, int) error { return nil })
	if b.Len() != 0 {
		t.Errorf("progress written to a pipe: %q", b.String())
	}
}
