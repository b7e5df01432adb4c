package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/barbican"
	"github.com/vtpmctl/vtpmctl/compute"
	"github.com/vtpmctl/vtpmctl/hostcheck"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/nova"
	"github.com/vtpmctl/vtpmctl/plans"
)

type planVerifyOptions struct {
	IO             *IOStreams
	Global         *globalOptions
	File           string
	Release        nova.Release
	JUnit          string
	Match          []string
	HostReports    string
	NoSecrets      bool
	NoACLs         bool
	ServiceProject string
}

func newPlanVerifyCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &planVerifyOptions{IO: streams, Global: g}
	return &cli.Command{
		Name: "verify", ArgsUsage: "PLAN", Usage: "after cutover: did each planned VM get what the plan promised?",
		Description: commandHelp(`
Finds each planned VM's server (one server list; with an admin's credentials
across every project), trying in turn: an explicit --match VM=SERVER, the
server's metadata vtpmctl:source, its image's vtpmctl:source (plan apply
stamps it on each VM's own image), --match templates, then the VM's name.
The value of vtpmctl:source is the VM's "source" in the output
(vCenter host/MoRef); a migration tool can set it at server create:
  openstack server create --property vtpmctl:source=vc01/vm-53 …

Checks per server, with Nova's rules for the cloud's release:
  STATUS       the server is ACTIVE
  VTPM         its flavor and image give the vTPM version/model promised
  FIRMWARE     UEFI (hw_firmware_type) as the source booted; BIOS stays BIOS
  SECURE-BOOT  os:secure_boot / os_secure_boot required where the source had it
  SECRET       its Barbican secret passes the secrets audit (vTPM guests)
  HOST-TRAITS  its host reports the traits Nova requires for it (admin)
  DOMAIN-TPM   the running domain has its <tpm> (from --host-reports)
A check that cannot run is "skip" with the reason, never a pass. Image
properties are read as they are now; Nova copied them at boot.

Per VM: verified, missing (with the remedy) or not found. Lists the Windows
VMs whose BitLocker escrow the plan still marks unconfirmed (set
bitlocker_escrow: confirmed once every recovery key is escrowed).`, []string{
			"vtpmctl --os-cloud prod plan verify plan.yaml",
			"vtpmctl --os-cloud prod plan verify plan.yaml --match '{vm}-ostack' --host-reports ./reports",
			"vtpmctl --os-cloud prod plan verify plan.yaml --match web01=web01-new -f json --junit verify.xml",
		}, `EXIT STATUS:
   0  every planned VM has its server and everything promised (warnings and skips allowed)
   1  a promise is not kept or a VM has no server; every VM is reported first
   2  usage error, unreadable plan, no cloud`),
		Flags: []cli.Flag{
			releaseFlag("nova-release", &o.Release, "Nova `RELEASE`", ""),
			&cli.StringSliceFlag{Name: "match", Usage: "tie VMs to servers: `VM=SERVER` (name or ID) or a template such as {vm}-win or {vcenter}-{vm} (repeatable)", Destination: &o.Match},
			&cli.StringFlag{Name: "host-reports", Usage: "`DIR` of host check JSON reports: confirms each running domain's <tpm>", Destination: &o.HostReports},
			&cli.BoolFlag{Name: "no-secrets", Usage: "skip the Barbican secret check", Destination: &o.NoSecrets},
			&cli.BoolFlag{Name: "no-acls", Usage: "do not read the secrets' ACLs (the SECRET check says so; one request per matched secret saved)", Destination: &o.NoACLs},
			&cli.StringFlag{Name: "nova-service-project", Usage: "`PROJECT` holding deployment-mode secrets (name or ID)", Value: "service", Destination: &o.ServiceProject},
			&cli.StringFlag{Name: "junit", Usage: "also write JUnit XML to `FILE` (- for stdout)", Destination: &o.JUnit},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usagef("plan verify: exactly one PLAN file")
			}
			o.File = cmd.Args().First()
			return runPlanVerify(ctx, o)
		},
	}
}

func runPlanVerify(ctx context.Context, o *planVerifyOptions) error {
	var rules []plans.MatchRule
	for _, m := range o.Match {
		r, err := plans.ParseMatch(m)
		if err != nil {
			return usagef("%v", err)
		}
		rules = append(rules, r)
	}
	p, err := readPlanFile(o.File)
	if err != nil {
		return err
	}
	reports, _, err := readReportDir(o.HostReports)
	if err != nil {
		return err
	}
	svc, err := o.Global.services(ctx, needCompute|needImage)
	if err != nil {
		return err
	}
	res, err := resolveRelease(ctx, o.IO, "--nova-release", o.Release, svc.compute, false, nil)
	if err != nil {
		return err
	}
	_, admin, err := svc.sess.TokenProject()
	if err != nil {
		return err
	}
	// KeepServers: plans.MatchServers and Verify read inv.Servers.
	inv, err := compute.ListInventory(ctx, svc.compute, svc.image, res.Release, compute.InventoryOpts{AllTenants: admin, KeepServers: true})
	if err != nil {
		return err
	}
	in := plans.VerifyInput{Inventory: inv, Release: res.Release, Matches: plans.MatchServers(p, inv, rules), Reports: reports, NotChecked: map[string]string{}}
	if len(reports) == 0 {
		in.NotChecked[plans.CheckDomainTPM] = "no --host-reports"
	}
	in.HostTraits, in.NotChecked[plans.CheckHostTraits] = verifyHostTraits(ctx, svc, admin)
	in.Secrets, in.NotChecked[plans.CheckSecret] = verifySecrets(ctx, o, svc, res.Release, inv, in.Matches, admin)
	if o.NoACLs && !o.NoSecrets {
		in.NotChecked[plans.CheckSecretACL] = "--no-acls"
	}
	for k, v := range in.NotChecked {
		if v == "" {
			delete(in.NotChecked, k)
		}
	}
	r := plans.Verify(p, in)
	if err := output.Write(o.IO.Out, o.Global.Output, &r); err != nil {
		return err
	}
	if err := writeJUnit(o.IO.Out, o.JUnit, "vtpmctl plan verify", r.Suites(), fileout.Public); err != nil {
		return err
	}
	if r.Failed() {
		return &reportedError{code: exitFailed, msg: fmt.Sprintf("plan %s: %d missing, %d not found", o.File, r.Missing, r.NotFound)}
	}
	return nil
}

// verifyHostTraits reads each service host's TPM traits (the fleet audit's
// lists: one Placement list per trait); a cloud that will not show them is
// a reason, not an error.
func verifyHostTraits(ctx context.Context, svc *services, admin bool) (map[string][]string, string) {
	if !admin {
		return nil, "needs an admin's credentials (hypervisor list and Placement)"
	}
	pl, err := svc.sess.Placement()
	if err != nil {
		return nil, errorLine(err.Error())
	}
	hosts, err := hostcheck.ListFleet(ctx, svc.compute, pl)
	if err != nil {
		return nil, errorLine(err.Error())
	}
	out := map[string][]string{}
	for _, h := range hosts {
		out[h.Host] = append(out[h.Host], h.Traits...)
	}
	return out, ""
}

// verifySecrets runs the secrets audit over the projects of the matched
// vTPM servers only (and Nova's service project for deployment mode).
func verifySecrets(ctx context.Context, o *planVerifyOptions, svc *services, rel nova.Release, inv nova.Inventory, matches map[int]plans.Match, admin bool) (map[string]barbican.GuestResult, string) {
	if o.NoSecrets {
		return nil, "--no-secrets"
	}
	if _, err := svc.sess.KeyManager(); err != nil {
		return nil, errorLine(err.Error())
	}
	guests := map[string]nova.VTPMGuest{}
	for _, g := range inv.Guests {
		guests[g.ServerID] = g
	}
	projects := map[string]bool{}
	acl := map[string]bool{} // only the matched guests' secrets' ACLs are read
	deployment := false
	for _, m := range matches {
		if g, ok := guests[m.ServerIDs[0]]; ok {
			projects[g.ProjectID] = true
			acl[g.ServerID] = true
			deployment = deployment || g.Mode == "deployment"
		}
	}
	if len(projects) == 0 {
		return map[string]barbican.GuestResult{}, ""
	}
	ao := &secretsAuditOptions{IO: o.IO, Global: o.Global, Concurrency: 8, ServiceProject: o.ServiceProject, NoACLs: o.NoACLs, ACLInstances: acl}
	if admin { // a member sees, and audits, the token's own project only
		for p := range projects {
			ao.Projects = append(ao.Projects, p)
		}
		if deployment {
			ao.Projects = append(ao.Projects, o.ServiceProject)
		}
		sort.Strings(ao.Projects)
	}
	audit, _, err := secretsAudit(ctx, ao, svc, rel, &inv)
	if err != nil {
		return nil, errorLine(err.Error())
	}
	out := map[string]barbican.GuestResult{}
	for _, g := range audit.Guests {
		out[g.ServerID] = g
	}
	return out, ""
}
