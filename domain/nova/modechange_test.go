package nova

import (
	"reflect"
	"strings"
	"testing"
)

func cfl(name string, vcpus, ram, disk int, specs ...string) CloudFlavor {
	f := fl(specs...)
	f.Name = name
	return CloudFlavor{ID: name + "-id", VCPUs: vcpus, RAM: ram, Disk: disk, Flavor: f}
}

// Each mode pair × release × catalog: Nova's rules are in
// compute/api.py API._validate_vtpm_secret_security (deployment refused
// both ways, user <-> host allowed) and the libvirt driver's
// _finish_migration_vtpm (state kept only for the same version/model).
func TestPlanModeChange(t *testing.T) {
	userF := cfl("w1", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb")
	hostF := cfl("w1-host", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb", "hw:tpm_secret_security=host")
	deplF := cfl("w1-depl", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb", "hw:tpm_secret_security=deployment")
	bigHost := cfl("w2-host", 8, 16384, 160, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb", "hw:tpm_secret_security=host")
	smallDisk := cfl("w1-host-20", 4, 8192, 20, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb", "hw:tpm_secret_security=host")
	tisHost := cfl("w1-host-tis", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-tis", "hw:tpm_secret_security=host")
	plainHost := cfl("plain-host", 4, 8192, 80, "hw:tpm_secret_security=host")               // no vTPM without an image that asks
	userDefault := cfl("w1-user", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_model=tpm-crb") // no mode spec: user
	catalog := []CloudFlavor{userF, hostF, deplF, bigHost, smallDisk, tisHost, plainHost, userDefault}

	cases := []struct {
		name      string
		rel       Release
		cur       CloudFlavor
		sizeKnown bool
		image     Image
		to        SecretMode
		cands     []CloudFlavor
		verdict   ModeChangeVerdict
		allowed   bool
		flavors   []string
		create    *NewFlavor
	}{
		{name: "before 2026.1 there are no modes", rel: Flamingo, cur: userF, sizeKnown: true, to: SecretHost, cands: catalog, verdict: ModeChangeNoModes},
		{name: "user to host: same version/model, target mode, not smaller", rel: Gazpacho, cur: userF, sizeKnown: true, to: SecretHost, cands: catalog,
			verdict: ModeChangeResize, allowed: true, flavors: []string{"w1-host", "w2-host"}},
		{name: "user to host on 2026.2", rel: Hibiscus, cur: userF, sizeKnown: true, to: SecretHost, cands: catalog,
			verdict: ModeChangeResize, allowed: true, flavors: []string{"w1-host", "w2-host"}},
		{name: "unknown size: smaller disk not excluded", rel: Gazpacho, cur: userF, to: SecretHost, cands: catalog,
			verdict: ModeChangeResize, allowed: true, flavors: []string{"w1-host", "w1-host-20", "w2-host"}},
		{name: "host to user: default mode counts", rel: Gazpacho, cur: hostF, sizeKnown: true, to: SecretUser, cands: catalog,
			verdict: ModeChangeResize, allowed: true, flavors: []string{"w1", "w1-user"}},
		{name: "user to host: no flavor, the create command", rel: Gazpacho, cur: userF, sizeKnown: true, to: SecretHost, cands: []CloudFlavor{userF, tisHost, smallDisk},
			verdict: ModeChangeNoFlavor, allowed: true, flavors: []string{},
			create: &NewFlavor{Name: "w1-host", Source: "w1", VCPUs: 4, RAM: 8192, Disk: 80, SizeKnown: true, AccessUnknown: true, TPMVersion: "2.0", TPMModel: "tpm-crb", SecretSecurity: SecretHost}},
		{name: "image sets the version: flavor without it fits", rel: Gazpacho, cur: cfl("i1", 2, 4096, 40), sizeKnown: true, image: im("hw_tpm_version=2.0"), to: SecretHost,
			cands: []CloudFlavor{plainHost, tisHost}, verdict: ModeChangeResize, allowed: true, flavors: []string{"plain-host", "w1-host-tis"}},
		{name: "user to deployment refused", rel: Gazpacho, cur: userF, sizeKnown: true, to: SecretDeployment, cands: catalog, verdict: ModeChangeRefused, flavors: []string{}},
		{name: "host to deployment refused", rel: Hibiscus, cur: hostF, sizeKnown: true, to: SecretDeployment, cands: catalog, verdict: ModeChangeRefused, flavors: []string{}},
		{name: "deployment to host refused", rel: Gazpacho, cur: deplF, sizeKnown: true, to: SecretHost, cands: catalog, verdict: ModeChangeRefused, flavors: []string{}},
		{name: "already host", rel: Gazpacho, cur: hostF, sizeKnown: true, to: SecretHost, cands: catalog, verdict: ModeChangeAlready, flavors: []string{}},
		{name: "no vTPM", rel: Gazpacho, cur: plainHost, sizeKnown: true, to: SecretHost, cands: catalog, verdict: ModeChangeNotVTPM, flavors: []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := PlanModeChange(ModeChangeInput{Release: c.rel, Flavor: c.cur, SizeKnown: c.sizeKnown, Image: c.image, To: c.to, Candidates: c.cands})
			if p.Verdict != c.verdict || p.ResizeAllowed != c.allowed || !reflect.DeepEqual(p.NewFlavor, c.create) {
				t.Fatalf("got verdict %s allowed %v create %+v, want %s %v %+v", p.Verdict, p.ResizeAllowed, p.NewFlavor, c.verdict, c.allowed, c.create)
			}
			if c.flavors != nil && !reflect.DeepEqual(p.Flavors, c.flavors) {
				t.Errorf("flavors %v, want %v", p.Flavors, c.flavors)
			}
			if c.verdict == ModeChangeRefused && p.Refusal != ResizeAcrossDeployment {
				t.Errorf("refusal %q is not Nova's", p.Refusal)
			}
			if c.verdict.Reached() != (c.verdict == ModeChangeResize || c.verdict == ModeChangeAlready) {
				t.Error("Reached")
			}
		})
	}
}

// The needs and the secret's fate name what Nova's code does per target.
func TestPlanModeChangeNeeds(t *testing.T) {
	base := cfl("w1", 4, 8192, 80, "hw:tpm_version=2.0")
	hostF := cfl("w1-host", 4, 8192, 80, "hw:tpm_version=2.0", "hw:tpm_secret_security=host")
	// _get_or_create_secret_for_vtpm reads Barbican with the resize
	// caller's token for either target (the service user only for
	// deployment): host mode has no libvirt secret on the destination yet,
	// user mode reads it at every start, the resize's own included.
	for _, c := range []struct {
		from CloudFlavor
		to   SecretMode
		want []string
	}{
		{base, SecretHost, []string{"COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST", "the resize caller's token can read the owner's Barbican secret", "persistent libvirt secret"}},
		{hostF, SecretUser, []string{"COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER", "the resize caller's token can read the owner's Barbican secret", "the owner's token at every later start"}},
	} {
		p := PlanModeChange(ModeChangeInput{Release: Gazpacho, Flavor: c.from, To: c.to})
		n := strings.Join(p.Needs, "\n")
		for _, w := range c.want {
			if !strings.Contains(n, w) {
				t.Errorf("to %s: needs lack %q: %q", c.to, w, n)
			}
		}
		if !strings.Contains(p.Secret, "no new secret, none deleted") || !strings.HasPrefix(p.TPMState, "kept") {
			t.Errorf("to %s: secret %q state %q", c.to, p.Secret, p.TPMState)
		}
	}
	odd := cfl("w1", 4, 8192, 80, "hw:tpm_version=2.0", "hw:cpu_policy=dedicated")
	if n := strings.Join(PlanModeChange(ModeChangeInput{Release: Gazpacho, Flavor: odd, SizeKnown: true, To: SecretHost}).Needs, "\n"); !strings.Contains(n, "other extra specs: hw:cpu_policy=dedicated") {
		t.Errorf("a created flavor would lose hw:cpu_policy: %q", n)
	}
	depl := PlanModeChange(ModeChangeInput{Release: Gazpacho, Flavor: base, To: SecretDeployment})
	if n := strings.Join(depl.Needs, "\n"); !strings.Contains(n, "[service_user]") || !strings.Contains(depl.Secret, "unchanged") {
		t.Errorf("deployment needs %q secret %q", n, depl.Secret)
	}
	if PlanModeChange(ModeChangeInput{Release: Zed, Flavor: base, To: SecretHost}).Refusal == "" {
		t.Error("no line for a release without modes")
	}
}
