package check

import (
	"context"
	"fmt"
	"reflect"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/openstack/cinder"
	"github.com/vtpmctl/vtpmctl/openstack/compute"
	"github.com/vtpmctl/vtpmctl/openstack/glance"
)

// Request is one check: an image or a boot volume with a flavor. An
// object named by Image, Volume or Flavor is read from the cloud; the
// properties and specs are applied on top of it (a "what if"), or alone
// when it is not named (offline).
type Request struct {
	Image, Flavor, Volume string // names or IDs on the cloud
	// AllProjects finds Volume by name in every project (an admin
	// checking another project's boot volume).
	AllProjects     bool
	ImageProperties map[string]string
	FlavorSpecs     map[string]string
	// ImageName, FlavorName name the offline objects in Nova's messages.
	ImageName, FlavorName string
	// Release is the caller's evidence; offline, its Flag is the release.
	Release nova.ReleaseEvidence
}

// Online: the request names an object on the cloud, so Check needs a
// session.
func (r Request) Online() bool { return r.Image != "" || r.Flavor != "" || r.Volume != "" }

// Result is Nova's answer and how the release was settled.
type Result struct {
	Decision nova.Decision
	// Release is how the release was settled (zero offline), and Differ
	// the question its candidates must agree on (this request's
	// decision): the caller words the note and any warning with its own
	// names (ResolvedRelease.NoteIn, WarningIn): a service knows no flag
	// and no terminal.
	Release nova.ResolvedRelease
	Differ  func(a, b nova.Release) bool
	// NearMisses are the keys Nova ignored that stand for vTPM keys
	// (hw_tpm_verion), each with what ignoring it did to the decision.
	NearMisses []nova.NearMiss
}

// Settled: the release came from the cloud or the caller (an offline
// check has no resolution to tell).
func (r Result) Settled() bool { return len(r.Release.Candidates) > 0 }

// Check reads the named objects (one GET or list each), settles the
// release from the compute API, decides with Nova's rules (the volume's
// when Volume is set) and, online, Barbican's answer to the caller's
// roles. sess may be nil for an offline request.
func Check(ctx context.Context, sess *cloud.Session, req Request) (Result, error) {
	image := nova.Image{Name: req.ImageName, Properties: req.ImageProperties}
	flavor := nova.Flavor{Name: req.FlavorName, ExtraSpecs: req.FlavorSpecs}
	var vol *nova.BootVolume // set with Volume: Nova's volume rules decide
	decide := func(f nova.Flavor, i nova.Image, r nova.Release) nova.Decision {
		if vol == nil {
			return nova.Decide(f, i, r)
		}
		v := *vol
		v.ImageMetadata = i.Properties
		return nova.DecideVolume(f, v, r)
	}
	if !req.Online() {
		d := decide(flavor, image, req.Release.Flag)
		return Result{Decision: d, NearMisses: nova.NearMisses(flavor, image, d)}, nil
	}
	computeClient, err := sess.Compute()
	if err != nil {
		return Result{}, err
	}
	if req.Image != "" {
		imageClient, err := sess.Image()
		if err != nil {
			return Result{}, err
		}
		ci, err := glance.FindImage(ctx, imageClient, req.Image)
		if err != nil {
			return Result{}, fmt.Errorf("image %s: %w", req.Image, err)
		}
		image = nova.Image{Name: ci.Name, Properties: overlay(ci.Properties, req.ImageProperties)}
	}
	if req.Volume != "" {
		vc, err := sess.BlockStorage()
		if err != nil {
			return Result{}, err
		}
		cv, err := cinder.FindVolume(ctx, vc, req.Volume, req.AllProjects)
		if err != nil {
			return Result{}, fmt.Errorf("volume %s: %w", req.Volume, err)
		}
		v := cv.Boot()
		v.ImageMetadata = overlay(v.ImageMetadata, req.ImageProperties)
		vol = &v
		image = nova.Image{Name: nova.DisplayName(v.Name, v.ID), Properties: v.ImageMetadata}
	}
	if req.Flavor != "" {
		cf, err := compute.FindFlavor(ctx, computeClient, req.Flavor)
		if err != nil {
			return Result{}, fmt.Errorf("flavor %s: %w", req.Flavor, err)
		}
		flavor = nova.Flavor{Name: cf.Name, ExtraSpecs: overlay(cf.ExtraSpecs, req.FlavorSpecs)}
	}
	differ := func(a, b nova.Release) bool { return !sameDecision(decide, flavor, image, a, b) }
	res, err := compute.ResolveRelease(ctx, computeClient, req.Release, true)
	if err != nil {
		return Result{}, err
	}
	out := Result{Release: res, Differ: differ}
	out.Decision = decide(flavor, image, res.Release)
	out.NearMisses = nova.NearMisses(flavor, image, out.Decision)
	// The caller's roles decide whether Barbican lets Nova store the secret.
	if roles, _ := sess.TokenRoles(); roles != nil {
		out.Decision = vtpmsecret.PredictSecretCreate(out.Decision, roles)
	}
	return out, nil
}

// sameDecision: two releases give this request the same answer.
func sameDecision(decide func(nova.Flavor, nova.Image, nova.Release) nova.Decision, f nova.Flavor, i nova.Image, a, b nova.Release) bool {
	da, db := decide(f, i, a), decide(f, i, b)
	da.Release, db.Release = 0, 0
	return reflect.DeepEqual(da, db)
}

func overlay(base, top map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(top))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range top {
		out[k] = v
	}
	return out
}
