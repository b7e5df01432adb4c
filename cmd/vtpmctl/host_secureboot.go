package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/app/secureboot"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// secureBootHost are the host flags status and update share: where the
// host's Nova and libvirt are, as host check reads them.
type secureBootHost struct {
	NovaConf    []string
	NovaConfDir string
	Layout      string
	NovaRoot    string
	LibvirtRoot string
	LibvirtURI  string
	Release     nova.Release
	Root        string
}

func (h *secureBootHost) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "nova-conf", Usage: "nova.conf `FILE` (repeatable, in order; default /etc/nova/nova.conf and nova-compute.conf)", Destination: &h.NovaConf},
		&cli.StringFlag{Name: "nova-config-dir", Usage: "`DIR` whose *.conf are read after the files", Destination: &h.NovaConfDir},
		&cli.StringFlag{Name: "layout", Usage: "deployment `LAYOUT`: auto, packages, kolla, openstack-helm, openstack-ansible", Value: "auto", Destination: &h.Layout},
		&cli.StringFlag{Name: "nova-root", Usage: "`DIR` holding nova-compute's filesystem (a container image's), for the installed Nova", Destination: &h.NovaRoot},
		&cli.StringFlag{Name: "libvirt-root", Usage: "`DIR` holding libvirtd's filesystem (a container image's), where the NVRAM files are", Destination: &h.LibvirtRoot},
		&cli.StringFlag{Name: "libvirt-uri", Usage: "libvirt `URI` (default: [libvirt] connection_uri, else qemu:///system)", Destination: &h.LibvirtURI},
		releaseFlag("nova-release", &h.Release, "Nova `RELEASE`", "the installed nova package's"),
	}
}

func (h *secureBootHost) options() hostcheck.Options {
	return hostcheck.Options{Root: h.Root, NovaConf: h.NovaConf, NovaConfDir: h.NovaConfDir, Layout: h.Layout, NovaRoot: h.NovaRoot,
		LibvirtRoot: h.LibvirtRoot, LibvirtURI: h.LibvirtURI, Release: h.Release, Words: cliWords{}}
}

type secureBootStatusOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Host    secureBootHost
	NVRAM   string
	Connect secureboot.Connect // nil: the real libvirt (tests hand in a fake)
}

type secureBootUpdateOptions struct {
	IO                 *IOStreams
	Global             *globalOptions
	Host               secureBootHost
	Servers            []string
	AllStopped         bool
	NVRAM              string
	DryRun, Yes        bool
	BitLockerSuspended bool
	Connect            secureboot.Connect
}

// secureBootLibvirt opens libvirt for status and update: nil is the real
// one; a test stands a recorded libvirtd in.
var secureBootLibvirt secureboot.Connect

const secureBootStatusExit = `EXIT STATUS:
   0  the guests were read (what each needs is in the output)
   1  the host or libvirt could not be read
   2  usage or configuration error (bad flag, no installed nova package and no --nova-release)`

const secureBootUpdateExit = `EXIT STATUS:
   0  every selected file was updated, or already held the 2023 certificates (nothing written), or --dry-run
   1  a write or its verification failed (each file says what was left where), not confirmed, or libvirt unreachable;
      or the output could not be written after a file was (stderr names each file written and its backup)
   2  usage, or refused with every file untouched: --bitlocker-suspended missing, no --yes in a pipe, a running or
      saved guest, a host whose Nova recreates NVRAM, no authenticated variable store, no room, no PK, only the
      site's own keys, a file in use`

func newHostSecureBootCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	st := &secureBootStatusOptions{IO: streams, Global: g, Connect: secureBootLibvirt}
	up := &secureBootUpdateOptions{IO: streams, Global: g, Connect: secureBootLibvirt}
	return &cli.Command{
		Name:  "secure-boot",
		Usage: "Microsoft's 2023 Secure Boot certificates in each guest's UEFI NVRAM: status, and the offline update",
		Description: commandHelp(`Microsoft's KEK CA 2011 expired on 2026-06-24, its UEFI CA 2011 on 2026-06-27
and the Windows Production PCA 2011 expires on 2026-10-19; new db/dbx updates are
signed with the 2023 keys. A guest's NVRAM keeps what its template enrolled when
it was created, and Windows cannot add the 2023 KEK itself (the PK is a
distribution's). status tells what each guest's NVRAM enrols; update adds the
2023 certificates from the host while the guest is stopped. See
docs/secure-boot-2023.md for the whole runbook.`, []string{
			"vtpmctl host secure-boot status",
			"vtpmctl host secure-boot update --server 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11 --bitlocker-suspended",
		}, "EXIT STATUS:\n   see vtpmctl host secure-boot status --help and update --help"),
		Action: groupAction,
		Commands: []*cli.Command{withResult(&cli.Command{
			Name:  "status",
			Usage: "what each UEFI guest's NVRAM enrols (PK, KEK, db, dbx), and what to do",
			Description: commandHelp(`
Runs on a compute node: asks libvirt (read-only) for the domains, reads each
UEFI guest's NVRAM file (in libvirtd's filesystem, as host check does) and
prints per guest: domain, Nova's instance UUID and name, state, the NVRAM file,
the PK's owner, the KEK and db certificates with their expiry, the number of
dbx entries, host check's certificate class (2023, partial, 2011, other,
no-keys, no-nvram, unreadable), whether this host's Nova keeps NVRAM across
stop/start (NVRAM-KEPT, from the installed Nova), and the remedy:

  update    stop the guest and add the 2023 certificates to its file
            (vtpmctl host secure-boot update)
  template  this host's Nova recreates every guest's NVRAM from the template:
            an updated file is lost at the next start; update Nova (31.3.0,
            32.2.0, 33.0.0 or later), or give the host a template with the 2023
            certificates (Debian's ovmf 2026.08, forky; bookworm's and trixie's
            enrol the 2011 set only)
  blocked   the file cannot take them in place (no room, not authenticated)
  unknown   the file or the installed Nova could not be read
  none      nothing to add (2023 already, no keys, the site's own keys)

--nvram FILE reads one variable file instead, neither libvirt nor Nova asked.
--root DIR reads a mounted host's tree (the domains from its
/etc/libvirt/qemu, states unknown, unless --libvirt-uri names its libvirt).
Nothing is written.`, []string{
				"vtpmctl host secure-boot status",
				"vtpmctl host secure-boot status -f json > secure-boot-$(hostname).json",
				"vtpmctl host secure-boot status -c domain -c uuid -c remedy -f value",
				"vtpmctl host secure-boot status --nvram /var/lib/libvirt/qemu/nvram/instance-0000002a_VARS.fd",
				"vtpmctl host secure-boot status --root /mnt/compute07 --nova-release 2026.1",
			}, secureBootStatusExit),
			Flags: append(st.Host.flags(),
				&cli.StringFlag{Name: "nvram", Usage: "read this variable `FILE` alone", Destination: &st.NVRAM},
				&cli.StringFlag{Name: "root", Usage: "read every file below `DIR` (a mounted host)", Destination: &st.Host.Root}),
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				return runSecureBootStatus(ctx, st)
			},
		}, prints(secureBootStatusView{&secureboot.StatusResult{}})), withResult(&cli.Command{
			Name:  "update",
			Usage: "add Microsoft's 2023 KEK and db certificates to stopped guests' NVRAM, offline, keeping every entry",
			Description: commandHelp(`
Adds to KEK the Microsoft Corporation KEK 2K CA 2023, and to db the Windows UEFI
CA 2023, the Microsoft UEFI CA 2023 and the Microsoft Option ROM UEFI CA 2023,
each missing one with Microsoft's owner GUID, as time-based authenticated
variables; PK, dbx, every entry already there and every other variable are
kept. Select the files with --server UUID (repeatable: a domain on this host,
by Nova's instance UUID, which is libvirt's domain UUID), --all-stopped (every
stopped guest whose NVRAM lacks the 2023 certificates), or --nvram FILE (one
variable file; neither libvirt nor Nova is asked, only whether another process
holds a lock on it).

BitLocker: KEK and db are measured into PCR 7, so a guest whose BitLocker is
sealed to it asks for its recovery key at the next boot unless BitLocker was
suspended first. --bitlocker-suspended states that it was (or that the
recovery key is escrowed); without it nothing is done (--dry-run needs none).

Every file is planned before any is written: read, checked, its new content
built and verified in memory. It refuses, every file untouched, exit 2: a
domain that is not shut off or has a saved state (Nova's suspend), a host
whose Nova recreates NVRAM from the template (bug 2131730) or cannot tell, a
file that is no authenticated variable store, has no room, has no PK (setup
mode), enrols the site's own keys and none of Microsoft's, or is locked by
another process (a running QEMU). Then, after the
confirmation (a terminal is asked; a pipe needs --yes), each file: the
domain's state asked again, the original kept beside it as
FILE.vtpmctl-<UTC time>.bak (never overwriting anything), the file replaced
atomically (a temp file beside it, synced, renamed) with its owner, group and
mode, read back and verified; a file that does not verify gets its original
back. A rerun finds nothing missing and writes nothing.`, []string{
				"vtpmctl host secure-boot update --server 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11 --dry-run",
				"vtpmctl host secure-boot update --server 6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11 --bitlocker-suspended",
				"vtpmctl host secure-boot update --all-stopped --bitlocker-suspended --yes -f json",
				"vtpmctl host secure-boot update --nvram ./guest_VARS.fd --bitlocker-suspended --yes",
			}, secureBootUpdateExit),
			Flags: append(up.Host.flags(),
				&cli.StringSliceFlag{Name: "server", Usage: "Nova instance `UUID` of a domain on this host (repeatable)", Destination: &up.Servers},
				&cli.BoolFlag{Name: "all-stopped", Usage: "every stopped guest whose NVRAM lacks the 2023 certificates", Destination: &up.AllStopped},
				&cli.StringFlag{Name: "nvram", Usage: "update this variable `FILE` alone", Destination: &up.NVRAM},
				&cli.BoolFlag{Name: "bitlocker-suspended", Usage: "state that BitLocker is suspended in the guests, or their recovery keys escrowed (required to write)", Destination: &up.BitLockerSuspended},
				&cli.BoolFlag{Name: "dry-run", Usage: "plan and print, write nothing", Destination: &up.DryRun},
				&cli.BoolFlag{Name: "yes", Usage: "write without asking (required without a terminal)", Destination: &up.Yes}),
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if err := noArgs(cmd); err != nil {
					return err
				}
				return runSecureBootUpdate(ctx, up)
			},
		}, prints(secureBootUpdateView{&secureboot.UpdateResult{}}))},
	}
}
