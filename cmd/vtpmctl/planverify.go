package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/compute"
	"github.com/vtpmctl/vtpmctl/internal/fileout"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/nova"
	"github.com/vtpmctl/vtpmctl/plans"
)

type planVerifyOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	File    string
	Release nova.Release
	JUnit   string
}

func newPlanVerifyCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	o := &planVerifyOptions{IO: streams, Global: g}
	return &cli.Command{
		Name: "verify", ArgsUsage: "PLAN", Usage: "after cutover: did each planned VM get the vTPM the plan promised?",
		Description: commandHelp(`
Finds each planned VM's server by name (one server list; with an admin's
credentials across every project) and checks with Nova's rules for the
cloud's release that its flavor and image give it the vTPM the plan
promised (version and model). Per VM: verified, missing (with the remedy)
or not found. Lists the Windows VMs whose BitLocker escrow the plan still
marks unconfirmed (set bitlocker_escrow: confirmed in the plan once every
recovery key is escrowed).`, []string{
			"vtpmctl --os-cloud prod plan verify plan.yaml",
			"vtpmctl --os-cloud prod plan verify plan.yaml -f json --junit verify.xml",
		}, `EXIT STATUS:
   0  every planned VM has its server and the vTPM promised
   1  a promised vTPM is missing or a VM has no server; every VM is reported first
   2  usage error, unreadable plan, no cloud`),
		Flags: []cli.Flag{
			releaseFlag("nova-release", &o.Release, "Nova `RELEASE`", ""),
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
	p, err := readPlanFile(o.File)
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
	_, admin, _ := svc.sess.TokenProject()
	inv, err := compute.ListVTPMGuests(ctx, svc.compute, svc.image, res.Release, admin)
	if err != nil {
		return err
	}
	r := plans.Verify(p, inv, res.Release)
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
