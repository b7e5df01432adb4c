package nova

import "errors"

// PartialWriteError is a write that stopped midway through an object's
// changes (Cinder takes one request per removed key): the keys in Written
// are on the object now, those in NotWritten are not. Err is the failure.
type PartialWriteError struct {
	Written, NotWritten []string
	Err                 error
}

func (e *PartialWriteError) Error() string { return e.Err.Error() }
func (e *PartialWriteError) Unwrap() error { return e.Err }

// WrittenKeys is which changed keys a failed write left on the object:
// only a PartialWriteError names any; any other error wrote nothing.
func WrittenKeys(err error) map[string]bool {
	var pw *PartialWriteError
	if !errors.As(err, &pw) {
		return nil
	}
	out := make(map[string]bool, len(pw.Written))
	for _, k := range pw.Written {
		out[k] = true
	}
	return out
}
