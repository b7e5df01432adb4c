//go:build libvirt_dlopen

package hostcheck

import "libvirt.org/go/libvirt"

// DomainState is the state of the domain uuid names and whether it has a
// managed save image (Nova's suspend): a saved domain has no QEMU process,
// but its start restores the firmware's flash from the image, over what
// was written to the NVRAM file meanwhile. Read calls only.
func (h *LiveHypervisor) DomainState(uuid string) (DomainState, bool, error) {
	d, err := h.conn.LookupDomainByUUIDString(uuid)
	if err != nil {
		return "", false, err
	}
	defer d.Free()
	st, _, err := d.GetState()
	if err != nil {
		return "", false, err
	}
	saved, err := d.HasManagedSaveImage(0)
	if err != nil {
		return "", false, err
	}
	return domainStates[st], saved, nil
}

var domainStates = map[libvirt.DomainState]DomainState{
	libvirt.DOMAIN_NOSTATE: DomainNoState, libvirt.DOMAIN_RUNNING: DomainRunning, libvirt.DOMAIN_BLOCKED: DomainBlocked,
	libvirt.DOMAIN_PAUSED: DomainPaused, libvirt.DOMAIN_SHUTDOWN: DomainShuttingDown, libvirt.DOMAIN_SHUTOFF: DomainShutOff,
	libvirt.DOMAIN_CRASHED: DomainCrashed, libvirt.DOMAIN_PMSUSPENDED: DomainPMSuspended,
}
