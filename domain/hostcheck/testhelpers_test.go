package hostcheck

import "context"

// Helpers only the tests call: the production entry points are
// elsewhere in the package.

// gather is gatherContext never cancelled (the tests' facts).
func gather(o Options) (*Facts, error) { return gatherContext(context.Background(), o) }

// Run performs every check: gather reads the host's facts once, then each
// check judges them. It returns an error only for input the checks cannot
// start from: a malformed or missing config file, an unknown layout or
// release (*ReleaseNotFoundError).
func Run(o Options) (*Report, error) {
	return run(context.Background(), o)
}
