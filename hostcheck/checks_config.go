package hostcheck

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/nova"
)

func (s *state) checkConfFiles() {
	if len(s.conf.Files) == 0 {
		s.add("NOVA-CONF", Fail, "no nova.conf file found", "pass --nova-conf FILE or --nova-config-dir DIR")
		return
	}
	s.add("NOVA-CONF", Pass, "read "+strings.Join(s.conf.Files, ", ")+" (later files win)", "")
}

func (s *state) checkEnabled() {
	on, err := s.conf.Bool("libvirt", "swtpm_enabled", false)
	if err != nil {
		s.add("SWTPM-ENABLED", Fail, err.Error(), "use True or False")
		return
	}
	s.enabled = on
	if on {
		s.add("SWTPM-ENABLED", Pass, "[libvirt] swtpm_enabled = True ("+s.conf.Where("libvirt", "swtpm_enabled")+")", "")
		return
	}
	s.add("SWTPM-ENABLED", Fail, "vTPM is off: [libvirt] swtpm_enabled is False ("+s.conf.Where("libvirt", "swtpm_enabled")+"); Nova reports no TPM traits and no vTPM guest is scheduled here",
		"set [libvirt] swtpm_enabled = True and restart nova-compute")
}

// checkDriver: only the libvirt driver emulates a TPM.
func (s *state) checkDriver() {
	d := s.conf.String("DEFAULT", "compute_driver", "")
	s.libvirtDriver = d == "" || d == "libvirt.LibvirtDriver" || strings.HasSuffix(d, ".LibvirtDriver")
	if s.libvirtDriver {
		s.add("COMPUTE-DRIVER", Pass, "compute_driver = libvirt.LibvirtDriver", "")
		return
	}
	st := Warn
	if s.enabled {
		st = Fail
	}
	s.add("COMPUTE-DRIVER", st, fmt.Sprintf("compute_driver = %s: only the libvirt driver emulates a TPM; Nova reports no TPM trait here", d), "use libvirt.LibvirtDriver for vTPM hosts")
}

// checkVirtType: LibvirtDriver._check_vtpm_support, first test.
func (s *state) checkVirtType() {
	s.virtType = s.conf.String("libvirt", "virt_type", "kvm")
	if s.virtType == "qemu" || s.virtType == "kvm" {
		s.add("VIRT-TYPE", Pass, "[libvirt] virt_type = "+s.virtType, "")
		return
	}
	st := Fail
	if !s.enabled {
		st = Warn
	}
	s.add("VIRT-TYPE", st, fmt.Sprintf("vTPM support requires '[libvirt] virt_type' of 'qemu' or 'kvm'; found '%s'.", s.virtType),
		"vTPM needs the libvirt driver with kvm (or qemu); other virt types cannot host vTPM guests")
}

// checkAccounts: Nova checks that swtpm_user and swtpm_group exist.
func (s *state) checkAccounts() {
	s.user = s.conf.String("libvirt", "swtpm_user", "tss")
	s.group = s.conf.String("libvirt", "swtpm_group", "tss")
	if why := s.layout.Unread["nova"]; why != "" {
		s.add("SWTPM-USER", Skip, "Nova looks up [libvirt] swtpm_user "+s.user+" where nova-compute runs: "+why, "")
		s.add("SWTPM-GROUP", Skip, "Nova looks up [libvirt] swtpm_group "+s.group+" where nova-compute runs: "+why, "")
		return
	}
	if _, ok := s.acc.users[s.user]; ok {
		s.add("SWTPM-USER", Pass, fmt.Sprintf("[libvirt] swtpm_user %s exists (uid %d)", s.user, s.acc.users[s.user]), "")
	} else {
		s.add("SWTPM-USER", s.failIfEnabled(), fmt.Sprintf("The user configured in '[libvirt] swtpm_user' does not exist on this host; expected '%s'.", s.user),
			"install swtpm (its package creates the user) or set [libvirt] swtpm_user to the user libvirt runs swtpm as")
	}
	if _, ok := s.acc.groups[s.group]; ok {
		s.add("SWTPM-GROUP", Pass, fmt.Sprintf("[libvirt] swtpm_group %s exists (gid %d)", s.group, s.acc.groups[s.group]), "")
	} else {
		s.add("SWTPM-GROUP", s.failIfEnabled(), fmt.Sprintf("The group configured in '[libvirt] swtpm_group' does not exist on this host; expected '%s'.", s.group),
			"set [libvirt] swtpm_group to the group libvirt runs swtpm as")
	}
}

// checkQemuConfMatch: Nova never compares its swtpm user with libvirt's;
// when they differ, cold migration and resize chown the state to the
// wrong owner and the guest's TPM cannot be read on the destination.
func (s *state) checkQemuConfMatch() {
	where := s.o.QemuConf + " (absent: libvirt's defaults)"
	if s.qemu != nil {
		where = s.qemu.Path
	}
	lu, lg := s.qemu.String("swtpm_user", "tss"), s.qemu.String("swtpm_group", "tss")
	// In a container layout libvirtd has its own /etc/passwd: the user it
	// runs swtpm as must exist there, whatever nova-compute's has.
	if (s.libvirtRoot != s.novaRoot || s.layout.Unread["nova"] != "") && s.layout.Unread["libvirt"] == "" {
		if _, ok := s.lacc.users[lu]; !ok {
			s.add("SWTPM-USER-LIBVIRT", s.failIfEnabled(), fmt.Sprintf("libvirt (%s) runs swtpm as %s, which does not exist in libvirtd's filesystem (%s): no vTPM guest starts", where, lu, s.libvirtRoot),
				"install swtpm in the libvirt image (its package creates the user) or set swtpm_user in qemu.conf to a user the image has")
			return
		}
	}
	if lu == s.user && lg == s.group {
		s.add("SWTPM-USER-LIBVIRT", Pass, fmt.Sprintf("nova.conf and %s agree: swtpm runs as %s:%s", where, lu, lg), "")
		return
	}
	s.add("SWTPM-USER-LIBVIRT", s.failIfEnabled(), fmt.Sprintf("nova.conf says swtpm runs as %s:%s but libvirt (%s) runs it as %s:%s; resize and cold migration chown vTPM state to the wrong owner",
		s.user, s.group, where, lu, lg), "make [libvirt] swtpm_user/swtpm_group in nova.conf equal swtpm_user/swtpm_group in qemu.conf")
}

// checkKeyManager: the doc requires a key manager; the code only has a
// TODO ("CONF.key_manager.backend is optional :(").
func (s *state) checkKeyManager() {
	b := s.conf.String("key_manager", "backend", "barbican")
	switch {
	case b == "barbican" || strings.HasSuffix(b, "BarbicanKeyManager"):
		s.add("KEY-MANAGER", Pass, "[key_manager] backend = barbican", "")
	case b == "vault" || strings.HasSuffix(b, "VaultKeyManager"):
		s.add("KEY-MANAGER", Pass, "[key_manager] backend = vault", "")
	default:
		s.add("KEY-MANAGER", s.warnIfEnabled(), fmt.Sprintf("[key_manager] backend = %s: vTPM passphrases would not be kept in Barbican; the secret audit cannot see them", b),
			"set [key_manager] backend = barbican (Castellan's default)")
	}
}

func (s *state) checkSecretSecurity() {
	if !s.rel.HasSecretSecurity() {
		s.add("SECRET-SECURITY", Skip, fmt.Sprintf("secret security modes arrive in 2026.1; %s has none (every guest behaves as user mode)", s.rel.Long()), "")
		return
	}
	// Nova 2026.1: a ListOpt without choices; _get_tpm_traits sets the
	// trait of each known mode it finds and ignores anything else, and
	// tpm_secret_security_filter makes every vTPM request require one
	// mode's trait (user when the flavor names none).
	listed := s.conf.List("libvirt", "supported_tpm_secret_security", []string{"user", "host", "deployment"})
	var unknown []string
	s.modes = nil
	for _, m := range listed {
		if contains(nova.SecretSecurities, m) {
			s.modes = append(s.modes, m)
		} else {
			unknown = append(unknown, fmt.Sprintf("%q", m))
		}
	}
	if len(s.modes) == 0 {
		what := "is empty"
		if len(unknown) > 0 {
			what = "names no mode Nova knows (" + strings.Join(unknown, ", ") + ")"
		}
		s.add("SECRET-SECURITY", s.failIfEnabled(), fmt.Sprintf("[libvirt] supported_tpm_secret_security %s: Nova reports no COMPUTE_SECURITY_TPM_SECRET_SECURITY_* trait, and every vTPM request requires one (user by default), so no vTPM guest can land on this host", what),
			"list the modes this host supports (Nova's default: user, host, deployment); traits this host reported before stay in Placement (Nova never removes them), so the scheduler may still send guests here until they are cleared")
		return
	}
	if len(unknown) > 0 {
		s.add("SECRET-SECURITY", Warn, fmt.Sprintf("[libvirt] supported_tpm_secret_security has %s, which Nova ignores (known modes: user, host, deployment); supported modes: %s", strings.Join(unknown, ", "), strings.Join(s.modes, ", ")),
			"remove the unknown entries (a misspelt mode is a mode this host does not offer)")
	} else {
		s.add("SECRET-SECURITY", Pass, "supported modes: "+strings.Join(s.modes, ", "), "")
	}
	if !contains(s.modes, "deployment") {
		return
	}
	var missing []string
	for _, k := range []string{"auth_type", "auth_url"} {
		if _, ok := s.conf.Get("service_user", k); !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		s.add("SERVICE-USER", Pass, "[service_user] is configured (deployment mode can create its secrets)", "")
		return
	}
	s.add("SERVICE-USER", Fail, "Failed to load auth plugin or session from configuration. Ensure the [service_user] section of the Nova configuration file is correctly configured for the Nova service user. (missing "+strings.Join(missing, ", ")+")",
		"configure [service_user], or drop deployment from [libvirt] supported_tpm_secret_security")
}

// checkResumeOnBoot: a user-mode vTPM guest needs its owner's token to
// fetch the Barbican secret; at host boot there is none, so the guest
// comes back in ERROR.
func (s *state) checkResumeOnBoot() {
	on, err := s.conf.Bool("DEFAULT", "resume_guests_state_on_host_boot", false)
	if err != nil {
		s.add("RESUME-ON-BOOT", Fail, err.Error(), "use True or False")
		return
	}
	if !on {
		s.add("RESUME-ON-BOOT", Pass, "resume_guests_state_on_host_boot is off: vTPM guests stay stopped after a host reboot until their owner starts them", "")
		return
	}
	// Live on 2026.1: host-mode guests come back from the persistent
	// libvirt secret, deployment-mode ones with Nova's service user; only
	// user-mode (and every pre-2026.1) guest needs a token there is none of.
	userMode, others := 0, 0
	for _, g := range s.r.VTPMGuests {
		if g.Mode == "" || g.Mode == "user" {
			userMode++
		} else {
			others++
		}
	}
	back := ""
	if others > 0 {
		back = fmt.Sprintf("; the %d host- or deployment-mode guest(s) come back (their secrets need no user token)", others)
	}
	if userMode == 0 {
		s.add("RESUME-ON-BOOT", Warn, "resume_guests_state_on_host_boot = True: any user-mode vTPM guest placed here will come back in ERROR after a host reboot (no user token to fetch its Barbican secret)"+back,
			"after a reboot the owner hard-reboots such guests; on 2026.1+ resize them to a flavor with hw:tpm_secret_security=host or deployment")
		return
	}
	s.add("RESUME-ON-BOOT", Fail, fmt.Sprintf("resume_guests_state_on_host_boot = True with %d user-mode vTPM guest(s) here: after a host reboot they come back in ERROR (no user token to fetch the Barbican secret)%s", userMode, back),
		"the owners hard-reboot them after a host reboot (an admin first resets ERROR to active); on 2026.1+ resize them to hw:tpm_secret_security=host or deployment")
}

func (s *state) failIfEnabled() Status {
	if s.enabled {
		return Fail
	}
	return Warn
}

func (s *state) warnIfEnabled() Status {
	if s.enabled {
		return Warn
	}
	return Skip
}
