//go:build !libvirt_dlopen

package hostcheck

import "errors"

// Without the libvirt_dlopen tag the binary would need libvirt's headers
// and library at build time; `make build` always sets the tag. This stub
// keeps a plain `go build ./...` and `go vet ./...` working.
var errNoLibvirt = errors.New("this vtpmctl was built without libvirt support: build it with `make build` (-tags libvirt_dlopen)")

// LiveHypervisor is unavailable in this build.
type LiveHypervisor struct{ Hypervisor }

// ConnectLibvirt always fails in this build.
func ConnectLibvirt(string) (*LiveHypervisor, error) { return nil, errNoLibvirt }
