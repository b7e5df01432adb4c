package nova

// Evidence is what decided that a server has a vTPM. The inventory sets
// flavor, image, instance or volume; an audit that promotes an undecided
// or unconfirmed server (Inventory.Undecided, Inventory.Unconfirmed)
// sets what it found: secret or host.
type Evidence string

const (
	// EvidenceFlavor: the server's embedded flavor asks (hw:tpm_version).
	EvidenceFlavor Evidence = "flavor"
	// EvidenceImage: the server's Glance image, as it is now, asks.
	EvidenceImage Evidence = "image"
	// EvidenceInstance: the image properties Nova stored in the instance
	// at boot, which the server API shows from 2.98 (2025.1) for a server
	// booted from an image: what Nova used, whatever the image says now.
	EvidenceInstance Evidence = "instance"
	// EvidenceVolume: the boot volume's volume_image_metadata asks, which
	// Nova reads instead of Glance for a volume-backed server
	// (nova/block_device.py get_image_metadata_from_volume).
	EvidenceVolume Evidence = "volume"
	// EvidenceSecret: a Barbican secret named "vTPM secret for instance
	// <uuid>" exists (nova/crypto.py ensure_vtpm_secret names it so).
	EvidenceSecret Evidence = "secret"
	// EvidenceHost: a host report shows <tpm> in the domain's XML.
	EvidenceHost Evidence = "host"
)

// Undecided is why a server's vTPM could not be decided from what the
// APIs show: Nova kept the image properties it used at boot in the
// instance (instance_system_metadata image_hw_tpm_*), which the server
// API shows only from 2.98 and never for a volume-backed server.
type Undecided string

const (
	// UndecidedImageGone: the server's image is deleted or not visible
	// to the caller; it may have asked for a vTPM when the server booted.
	UndecidedImageGone Undecided = "image_gone"
	// UndecidedNoBlockStorage: the server is volume-backed and the
	// catalog has no block storage, so its boot volume was not read.
	UndecidedNoBlockStorage Undecided = "no_block_storage"
	// UndecidedVolumesUnreadable: the server is volume-backed and the
	// volume list failed (Inventory.VolumesErr says why).
	UndecidedVolumesUnreadable Undecided = "volumes_unreadable"
	// UndecidedNoBootVolume: the server is volume-backed but no listed
	// volume is attached to it as its root device (a volume of another
	// project, or a list scoped to the token's project).
	UndecidedNoBootVolume Undecided = "boot_volume_not_found"
	// UndecidedCellDown: Nova listed only a partial record (status
	// UNKNOWN, no flavor, no image): the server's cell is unreachable.
	UndecidedCellDown Undecided = "cell_down"
)

// UndecidedReasons are the reasons an Undecided server can have.
var UndecidedReasons = []Undecided{UndecidedImageGone, UndecidedNoBlockStorage, UndecidedNoBootVolume, UndecidedCellDown, UndecidedVolumesUnreadable}

// UndecidedServer is a server whose flavor does not ask for a vTPM and
// whose image properties at boot are not known. Guest is what it would
// be as a vTPM guest (Version, Model and Evidence empty): an audit that
// finds other evidence (EvidenceSecret, EvidenceHost) fills those and
// counts it as a guest.
type UndecidedServer struct {
	Guest  VTPMGuest `json:"guest"`
	Reason Undecided `json:"reason"`
}

// UndecidedCount is how many undecided servers have reason r.
func (inv Inventory) UndecidedCount(r Undecided) int {
	n := 0
	for _, u := range inv.Undecided {
		if u.Reason == r {
			n++
		}
	}
	return n
}

// Unconfirmed is why a server decided "no vTPM" may have one all the
// same: it was decided from image properties as they are now, not as
// Nova read them at boot, and anyone can have changed them since.
type Unconfirmed string

const (
	// UnconfirmedVolumeNow: a volume-backed server, decided from its boot
	// volume's volume_image_metadata as it is now (`openstack volume
	// unset --image-property` since boot); the server API never shows
	// what Nova read.
	UnconfirmedVolumeNow Unconfirmed = "boot_volume_now"
	// UnconfirmedImageNow: a server booted from an image, decided from
	// the Glance image as it is now (untagged since boot), where the
	// server list does not show the properties Nova stored at boot
	// (before microversion 2.98).
	UnconfirmedImageNow Unconfirmed = "image_now"
)

// UnconfirmedReasons are the reasons an Unconfirmed server can have.
var UnconfirmedReasons = []Unconfirmed{UnconfirmedVolumeNow, UnconfirmedImageNow}

// UnconfirmedServer is a server decided "no vTPM" from properties as
// they are now (also in Others). Like UndecidedServer, Guest is what it
// would be as a vTPM guest: an audit that finds other evidence
// (EvidenceSecret, EvidenceHost) fills Version, Model and Evidence and
// counts it as a guest; without such evidence it stays decided, and is
// neither counted nor warned about.
type UnconfirmedServer struct {
	Guest  VTPMGuest   `json:"guest"`
	Reason Unconfirmed `json:"reason"`
}
