package nova

import "github.com/vtpmctl/vtpmctl/internal/completeness"

// VTPMGuest is a server Nova gives a vTPM.
type VTPMGuest struct {
	ServerID  string     `json:"server_id"`
	Name      string     `json:"name"`
	ProjectID string     `json:"project_id"`
	UserID    string     `json:"user_id"`
	Status    string     `json:"status"`
	Host      string     `json:"host,omitempty"`
	Version   string     `json:"version"`
	Model     string     `json:"model"`
	Mode      SecretMode `json:"mode"` // user, host, deployment
	// FlavorSecretSecurity is the flavor's hw:tpm_secret_security as
	// written, which a 2026.1+ Nova reads even where today's ignores it.
	FlavorSecretSecurity string `json:"flavor_secret_security,omitempty"`
	// Evidence is what decided the vTPM (flavor, image, instance, volume;
	// secret or host when an audit promoted an undecided or unconfirmed
	// server).
	Evidence Evidence `json:"evidence,omitempty"`
}

// Inventory is every listed server, sorted by what Nova makes of it
// (inventory.List builds it, page by page).
type Inventory struct {
	Guests GuestList
	// Others have no vTPM request. ImageUnknown marks those whose image
	// could not be read (deleted, or not visible to the caller): their
	// image properties may have asked for a vTPM all the same.
	Others map[string]OtherServer
	// Servers holds, by ID, what the one server list said of each server,
	// for readers that check more than the vTPM (plan verify); nil unless
	// asked for (inventory.Opts.KeepServers): it is most of the
	// memory at 50,000 servers. Its Image and Flavor.ExtraSpecs are
	// shared between servers: read only.
	Servers map[string]Server
	// Undecided are the servers whose flavor asks for no vTPM and whose
	// image properties at boot could not be read (also in Others): see
	// Undecided's reasons. The audits resolve them from other evidence.
	Undecided []UndecidedServer
	// Unconfirmed are the servers decided "no vTPM" from image properties
	// as they are now (a boot volume's, or a Glance image's where the list
	// does not show those stored at boot), also in Others: the audits
	// promote them from other evidence like the undecided ones, and count
	// nothing for the rest.
	Unconfirmed []UnconfirmedServer
	// VolumesErr is the volume list's failure, nil when it was listed or
	// not asked for: the volume-backed servers are then undecided
	// (UndecidedVolumesUnreadable), and the audits warn with it.
	VolumesErr error
	// ServerMicroversion is the compute API microversion the servers were
	// listed at; PartialServers counts the partial records (2.69+) of
	// servers in cells Nova could not reach.
	ServerMicroversion string
	PartialServers     int
	// ServerGaps say why the server list cannot prove a server absent
	// (none: every project's servers, every cell answering, at 2.69+).
	ServerGaps completeness.Gaps
}

// Server is one listed server with what Nova reads to build it.
type Server struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	ProjectID string            `json:"project_id"`
	Status    string            `json:"status"`
	Host      string            `json:"host,omitempty"` // admins only
	Metadata  map[string]string `json:"metadata,omitempty"`
	ImageID   string            `json:"image_id,omitempty"`
	// Image is nil when the image could not be read (deleted, not
	// visible, or a volume-backed server).
	Image  *Image `json:"-"`
	Flavor Flavor `json:"-"`
	// BootVolumeID is the volume a volume-backed server boots from, when
	// found; BootVolume its volume_image_metadata, which Nova reads
	// instead of an image's properties (read only, like Image).
	BootVolumeID string `json:"boot_volume_id,omitempty"`
	BootVolume   *Image `json:"-"`
	// FlavorSize is the instance's own flavor's size, as the server list
	// embeds it (2.47+): what a resize compares, whatever the catalog
	// flavor of that name became.
	FlavorSize FlavorSize `json:"-"`
}

// FlavorSize is the part of an instance's flavor a resize compares (GB
// and MB as Nova's flavor shows them); Known is false where the list
// did not show it (a down cell, an older microversion).
type FlavorSize struct {
	VCPUs, RAM, Disk, Ephemeral int
	Known                       bool
}

// OtherServer is a server without a (visible) vTPM request.
type OtherServer struct {
	Name         string `json:"name"`
	ImageUnknown bool   `json:"image_unknown"`
}
