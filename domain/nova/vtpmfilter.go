package nova

// VTPMFilter keeps every listed object, only those with a vTPM, or only
// those without: one tri-state the image, volume and flavor lists share,
// so a caller builds it once for any of them.
type VTPMFilter int

const (
	AnyVTPM     VTPMFilter = iota
	WithVTPM               // only objects that have (or give) a vTPM
	WithoutVTPM            // only objects that do not
)

// Keep says whether f keeps an object that has (or gives) a vTPM.
func (f VTPMFilter) Keep(vtpm bool) bool {
	return f == AnyVTPM || (f == WithVTPM) == vtpm
}
