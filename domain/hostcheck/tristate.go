package hostcheck

// TriState is a host's answer that may be unknown: whether a guest's TPM
// state or NVRAM survives a stop, whether swtpm can migrate, whether
// libvirt's secrets survive a container re-create, whether the installed
// Nova carries a known bug. Its JSON is the word itself, as reports have
// always written it; "" is no answer at all (not applicable, or a report
// from before the field). The fleet audit reads reports back and decides
// on these values, never on a message's words.
type TriState string

const (
	Yes     TriState = "yes"
	No      TriState = "no"
	Unknown TriState = "unknown"
)

// triOf: known false is Unknown, whatever b says.
func triOf(b, known bool) TriState {
	switch {
	case !known:
		return Unknown
	case b:
		return Yes
	}
	return No
}
