package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// withProgress shows "label: n/N" on stderr while long work runs — only
// when stderr is a terminal, never in a pipe or a log file.
func withProgress(ctx context.Context, w io.Writer, label string) context.Context {
	w = output.Raw(w) // the line draws with escape sequences of its own
	if !isTerminal(w) {
		return ctx
	}
	var mu sync.Mutex
	return parallel.WithProgress(ctx, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "\r\033[Kvtpmctl: %s %d/%d", label, done, total)
		if done == total {
			fmt.Fprint(w, "\r\033[K")
		}
	})
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
