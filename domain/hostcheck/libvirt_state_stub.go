//go:build !libvirt_dlopen

package hostcheck

// DomainState is unavailable in this build.
func (*LiveHypervisor) DomainState(string) (DomainState, bool, error) {
	return "", false, errNoLibvirt
}
