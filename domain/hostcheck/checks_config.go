package hostcheck

import (
	"fmt"
	"strings"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// one is a check function's single finding.
func one(id string, st Status, msg, remedy string) []Check {
	return []Check{{ID: id, Status: st, Message: msg, Remedy: remedy}}
}

func checkConfFiles(f *Facts) []Check {
	files := f.Conf.files()
	if len(files) == 0 {
		return one("NOVA-CONF", Fail, "no nova.conf file found", "pass "+f.words().Option(advice.NovaConf)+" FILE or "+f.words().Option(advice.NovaConfigDir)+" DIR")
	}
	return one("NOVA-CONF", Pass, "read "+strings.Join(files, ", ")+" (later files win)", "")
}

func checkEnabled(f *Facts) []Check {
	if f.EnabledErr != nil {
		return one("SWTPM-ENABLED", Fail, f.EnabledErr.Error(), "use True or False")
	}
	where := f.Conf.Where("libvirt", "swtpm_enabled")
	if f.Enabled {
		return one("SWTPM-ENABLED", Pass, "[libvirt] swtpm_enabled = True ("+where+")", "")
	}
	return one("SWTPM-ENABLED", Fail, "vTPM is off: [libvirt] swtpm_enabled is False ("+where+"); Nova reports no TPM traits and no vTPM guest is scheduled here",
		"set [libvirt] swtpm_enabled = True and restart nova-compute")
}

// checkDriver: only the libvirt driver emulates a TPM.
func checkDriver(f *Facts) []Check {
	if f.LibvirtDriver {
		return one("COMPUTE-DRIVER", Pass, "compute_driver = libvirt.LibvirtDriver", "")
	}
	st := Warn
	if f.Enabled {
		st = Fail
	}
	return one("COMPUTE-DRIVER", st, fmt.Sprintf("compute_driver = %s: only the libvirt driver emulates a TPM; Nova reports no TPM trait here", f.ComputeDriver), "use libvirt.LibvirtDriver for vTPM hosts")
}

// checkVirtType: LibvirtDriver._check_vtpm_support, first test.
func checkVirtType(f *Facts) []Check {
	if f.VirtType == "qemu" || f.VirtType == "kvm" {
		return one("VIRT-TYPE", Pass, "[libvirt] virt_type = "+f.VirtType, "")
	}
	st := Fail
	if !f.Enabled {
		st = Warn
	}
	return one("VIRT-TYPE", st, fmt.Sprintf("vTPM support requires '[libvirt] virt_type' of 'qemu' or 'kvm'; found '%s'.", f.VirtType),
		"vTPM needs the libvirt driver with kvm (or qemu); other virt types cannot host vTPM guests")
}

// checkAccounts: Nova checks that swtpm_user and swtpm_group exist.
func checkAccounts(f *Facts) []Check {
	if why := f.Layout.Unread["nova"]; why != "" {
		return []Check{
			{ID: "SWTPM-USER", Status: Skip, Message: "Nova looks up [libvirt] swtpm_user " + f.User + " where nova-compute runs: " + why},
			{ID: "SWTPM-GROUP", Status: Skip, Message: "Nova looks up [libvirt] swtpm_group " + f.Group + " where nova-compute runs: " + why},
		}
	}
	var out []Check
	if uid, ok := f.Accounts.users[f.User]; ok {
		out = append(out, one("SWTPM-USER", Pass, fmt.Sprintf("[libvirt] swtpm_user %s exists (uid %d)", f.User, uid), "")...)
	} else {
		out = append(out, one("SWTPM-USER", failIfEnabled(f), fmt.Sprintf("The user configured in '[libvirt] swtpm_user' does not exist on this host; expected '%s'.", f.User),
			"install swtpm (its package creates the user) or set [libvirt] swtpm_user to the user libvirt runs swtpm as")...)
	}
	if gid, ok := f.Accounts.groups[f.Group]; ok {
		out = append(out, one("SWTPM-GROUP", Pass, fmt.Sprintf("[libvirt] swtpm_group %s exists (gid %d)", f.Group, gid), "")...)
	} else {
		out = append(out, one("SWTPM-GROUP", failIfEnabled(f), fmt.Sprintf("The group configured in '[libvirt] swtpm_group' does not exist on this host; expected '%s'.", f.Group),
			"set [libvirt] swtpm_group to the group libvirt runs swtpm as")...)
	}
	return out
}

// checkQemuConfMatch: Nova never compares its swtpm user with libvirt's;
// when they differ, cold migration and resize chown the state to the
// wrong owner and the guest's TPM cannot be read on the destination.
func checkQemuConfMatch(f *Facts) []Check {
	where := f.Layout.QemuConf + " (absent: libvirt's defaults)"
	if f.Qemu != nil {
		where = f.Qemu.Path
	}
	lu, lg := f.LibvirtUser, f.LibvirtGroup
	// In a container layout libvirtd has its own /etc/passwd: the user it
	// runs swtpm as must exist there, whatever nova-compute's has.
	if (f.LibvirtRoot != f.NovaRoot || f.Layout.Unread["nova"] != "") && f.Layout.Unread["libvirt"] == "" {
		if _, ok := f.LibvirtAccounts.users[lu]; !ok {
			return one("SWTPM-USER-LIBVIRT", failIfEnabled(f), fmt.Sprintf("libvirt (%s) runs swtpm as %s, which does not exist in libvirtd's filesystem (%s): no vTPM guest starts", where, lu, f.LibvirtRoot),
				"install swtpm in the libvirt image (its package creates the user) or set swtpm_user in qemu.conf to a user the image has")
		}
	}
	if lu == f.User && lg == f.Group {
		return one("SWTPM-USER-LIBVIRT", Pass, fmt.Sprintf("nova.conf and %s agree: swtpm runs as %s:%s", where, lu, lg), "")
	}
	return one("SWTPM-USER-LIBVIRT", failIfEnabled(f), fmt.Sprintf("nova.conf says swtpm runs as %s:%s but libvirt (%s) runs it as %s:%s; resize and cold migration chown vTPM state to the wrong owner",
		f.User, f.Group, where, lu, lg), "make [libvirt] swtpm_user/swtpm_group in nova.conf equal swtpm_user/swtpm_group in qemu.conf")
}

// checkKeyManager: the doc requires a key manager; the code only has a
// TODO ("CONF.key_manager.backend is optional :(").
func checkKeyManager(f *Facts) []Check {
	b := f.Conf.String("key_manager", "backend", "barbican")
	switch {
	case b == "barbican" || strings.HasSuffix(b, "BarbicanKeyManager"):
		return one("KEY-MANAGER", Pass, "[key_manager] backend = barbican", "")
	case b == "vault" || strings.HasSuffix(b, "VaultKeyManager"):
		return one("KEY-MANAGER", Pass, "[key_manager] backend = vault", "")
	}
	return one("KEY-MANAGER", warnIfEnabled(f), fmt.Sprintf("[key_manager] backend = %s: vTPM passphrases would not be kept in Barbican; the secret audit cannot see them", b),
		"set [key_manager] backend = barbican (Castellan's default)")
}

// checkSecretSecurity: Nova 2026.1's tpm_secret_security_filter makes
// every vTPM request require one mode's trait (user when the flavor names
// none); f.Modes are the modes whose trait this host reports.
func checkSecretSecurity(f *Facts) []Check {
	if !f.Release.HasSecretSecurity() {
		return one("SECRET-SECURITY", Skip, fmt.Sprintf("secret security modes arrive in 2026.1; %s has none (every guest behaves as user mode)", f.Release.Long()), "")
	}
	if len(f.Modes) == 0 {
		what := "is empty"
		if len(f.UnknownModes) > 0 {
			what = "names no mode Nova knows (" + strings.Join(f.UnknownModes, ", ") + ")"
		}
		return one("SECRET-SECURITY", failIfEnabled(f), fmt.Sprintf("[libvirt] supported_tpm_secret_security %s: Nova reports no COMPUTE_SECURITY_TPM_SECRET_SECURITY_* trait, and every vTPM request requires one (user by default), so no vTPM guest can land on this host", what),
			"list the modes this host supports (Nova's default: user, host, deployment); traits this host reported before stay in Placement (Nova never removes them), so the scheduler may still send guests here until they are cleared")
	}
	modes := modeNames(f.Modes)
	var out []Check
	if len(f.UnknownModes) > 0 {
		out = one("SECRET-SECURITY", Warn, fmt.Sprintf("[libvirt] supported_tpm_secret_security has %s, which Nova ignores (known modes: user, host, deployment); supported modes: %s", strings.Join(f.UnknownModes, ", "), strings.Join(modes, ", ")),
			"remove the unknown entries (a misspelt mode is a mode this host does not offer)")
	} else {
		out = one("SECRET-SECURITY", Pass, "supported modes: "+strings.Join(modes, ", "), "")
	}
	if !contains(modes, string(nova.SecretDeployment)) {
		return out
	}
	var missing []string
	for _, k := range []string{"auth_type", "auth_url"} {
		if _, ok := f.Conf.Get("service_user", k); !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return append(out, one("SERVICE-USER", Pass, "[service_user] is configured (deployment mode can create its secrets)", "")...)
	}
	return append(out, one("SERVICE-USER", Fail, "Failed to load auth plugin or session from configuration. Ensure the [service_user] section of the Nova configuration file is correctly configured for the Nova service user. (missing "+strings.Join(missing, ", ")+")",
		"configure [service_user], or drop deployment from [libvirt] supported_tpm_secret_security")...)
}

func modeNames(modes []nova.SecretMode) []string {
	out := make([]string, len(modes))
	for i, m := range modes {
		out[i] = string(m)
	}
	return out
}

// checkResumeOnBoot: a user-mode vTPM guest needs its owner's token to
// fetch the Barbican secret; at host boot there is none, so the guest
// comes back in ERROR.
func checkResumeOnBoot(f *Facts) []Check {
	on, err := f.Conf.Bool("DEFAULT", "resume_guests_state_on_host_boot", false)
	if err != nil {
		return one("RESUME-ON-BOOT", Fail, err.Error(), "use True or False")
	}
	if !on {
		return one("RESUME-ON-BOOT", Pass, "resume_guests_state_on_host_boot is off: vTPM guests stay stopped after a host reboot until their owner starts them", "")
	}
	// Live on 2026.1: host-mode guests come back from the persistent
	// libvirt secret, deployment-mode ones with Nova's service user; only
	// user-mode (and every pre-2026.1) guest needs a token there is none of.
	userMode, others := 0, 0
	for _, g := range f.Guests {
		if g.Mode == "" || g.Mode == nova.SecretUser {
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
		return one("RESUME-ON-BOOT", Warn, "resume_guests_state_on_host_boot = True: any user-mode vTPM guest placed here will come back in ERROR after a host reboot (no user token to fetch its Barbican secret)"+back,
			"after a reboot the owner hard-reboots such guests; on 2026.1+ resize them to a flavor with hw:tpm_secret_security=host or deployment")
	}
	return one("RESUME-ON-BOOT", Fail, fmt.Sprintf("resume_guests_state_on_host_boot = True with %d user-mode vTPM guest(s) here: after a host reboot they come back in ERROR (no user token to fetch the Barbican secret)%s", userMode, back),
		"the owners hard-reboot them after a host reboot (an admin first resets ERROR to active); on 2026.1+ resize them to hw:tpm_secret_security=host or deployment")
}

func failIfEnabled(f *Facts) Status {
	if f.Enabled {
		return Fail
	}
	return Warn
}

func warnIfEnabled(f *Facts) Status {
	if f.Enabled {
		return Warn
	}
	return Skip
}
