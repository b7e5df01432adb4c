package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

const auditExit = `EXIT STATUS:
   0  every check passed (warnings and skips included)
   1  at least one check failed; every finding is reported before exiting
   2  usage error, malformed or missing config file, unknown Nova release`

// writeJUnit writes the file through fileout: atomically for a regular
// file (a CI system never reads half), in place for /dev/null or a FIFO.
// Reports that name owners and secrets are private (0600). suites is
// called only when a file is asked for: an audit's suites hold every
// guest's findings (~600 bytes a guest, 280 MB at 500,000), which the
// streamed JSON does not.
func writeJUnit(ctx context.Context, stdout io.Writer, path, name string, suites func() []result.Suite, mode os.FileMode) error {
	if path == "" {
		return nil
	}
	err := fileout.Write(ctx, path, mode, stdout, func(w io.Writer) error { return result.WriteJUnit(w, name, suites()) })
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}
