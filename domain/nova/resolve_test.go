package nova

import (
	"reflect"
	"strings"
	"testing"
)

func fl(specs ...string) Flavor {
	m, err := ParseKeyValues(specs)
	if err != nil {
		panic(err)
	}
	return Flavor{Name: "f1", ExtraSpecs: m}
}

func im(props ...string) Image {
	m, err := ParseKeyValues(props)
	if err != nil {
		panic(err)
	}
	return Image{Name: "img1", Properties: m}
}

// Each case cites the Nova code (or functional test) whose behaviour it
// pins. Paths are in openstack/nova; "hardware.py" is nova/virt/hardware.py.
func TestDecide(t *testing.T) {
	const (
		t20  = "COMPUTE_SECURITY_TPM_2_0"
		t12  = "COMPUTE_SECURITY_TPM_1_2"
		tis  = "COMPUTE_SECURITY_TPM_TIS"
		crb  = "COMPUTE_SECURITY_TPM_CRB"
		user = "COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER"
		host = "COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST"
		depl = "COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT"
	)
	type want struct {
		vtpm           bool
		version, model string
		vFrom, mFrom   string
		mode           string
		traits         []string
		kind           ErrorKind
		stage          Stage
		msg            string
		noteHas        string
	}
	cases := []struct {
		name, cite string
		rel        Release
		f          Flavor
		i          Image
		w          want
	}{
		// --- no request
		{"nothing set", "get_vtpm_constraint: version None -> None", Zed, fl(), im(), want{}},
		{"unrelated keys", "get_vtpm_constraint reads only tpm_version/tpm_model", Gazpacho, fl("hw:cpu_policy=dedicated"), im("os_distro=windows"), want{}},
		{"model only on flavor is silent", "get_vtpm_constraint returns None before reading the model", Zed, fl("hw:tpm_model=tpm-crb"), im(), want{noteHas: "without a TPM version"}},
		{"model only on image is silent", "same, image side", Dalmatian, fl(), im("hw_tpm_model=tpm-tis"), want{noteHas: "without a TPM version"}},
		{"bad model without version is silent on flavor", "model never read when version is None", Zed, fl("hw:tpm_model=foo"), im(), want{noteHas: "refuses it"}},
		{"secret security without vTPM ignored", "request_filter.tpm_secret_security_filter skipped when no vTPM", Gazpacho, fl("hw:tpm_secret_security=host"), im(), want{noteHas: "ignored without a vTPM"}},
		{"empty flavor version is unset", "_get_unique_flavor_image_meta uses truthiness", Zed, fl("hw:tpm_version="), im(), want{}},
		{"ussuri ignores everything", "vTPM arrived in Victoria (commit e0ca2652ed)", Ussuri, fl("hw:tpm_version=2.0"), im(), want{noteHas: "no emulated TPM"}},

		// --- flavor only / image only
		{"flavor 2.0 default model", "model defaults to fields.TPMModel.TIS", Zed, fl("hw:tpm_version=2.0"), im(),
			want{vtpm: true, version: "2.0", model: "tpm-tis", vFrom: "flavor", mFrom: "default", traits: []string{t20}}},
		{"flavor 1.2 tis", "_translate_vtpm_request: 1.2 -> TPM_1_2", Zed, fl("hw:tpm_version=1.2", "hw:tpm_model=tpm-tis"), im(),
			want{vtpm: true, version: "1.2", model: "tpm-tis", vFrom: "flavor", mFrom: "flavor", traits: []string{t12}}},
		{"image 2.0 crb", "image props read as hw_<key>", Zed, fl(), im("hw_tpm_version=2.0", "hw_tpm_model=tpm-crb"),
			want{vtpm: true, version: "2.0", model: "tpm-crb", vFrom: "image", mFrom: "image", traits: []string{t20}}},
		{"victoria image 2.0", "Victoria 22.0.0 introduced the keys", Victoria, fl(), im("hw_tpm_version=2.0"),
			want{vtpm: true, version: "2.0", model: "tpm-tis", vFrom: "image", mFrom: "default", traits: []string{t20}}},

		// --- merge per key
		{"flavor version + image model", "each key merged on its own", Zed, fl("hw:tpm_version=2.0"), im("hw_tpm_model=tpm-crb"),
			want{vtpm: true, version: "2.0", model: "tpm-crb", vFrom: "flavor", mFrom: "image", traits: []string{t20}}},
		{"image version + flavor model", "each key merged on its own", Zed, fl("hw:tpm_model=tpm-crb"), im("hw_tpm_version=2.0"),
			want{vtpm: true, version: "2.0", model: "tpm-crb", vFrom: "image", mFrom: "flavor", traits: []string{t20}}},
		{"both agree", "equal values are no conflict", Zed, fl("hw:tpm_version=2.0", "hw:tpm_model=tpm-crb"), im("hw_tpm_version=2.0", "hw_tpm_model=tpm-crb"),
			want{vtpm: true, version: "2.0", model: "tpm-crb", vFrom: "flavor", mFrom: "flavor", traits: []string{t20}}},
		{"empty flavor value falls back to image", "flavor_value or image_value", Zed, fl("hw:tpm_version="), im("hw_tpm_version=1.2"),
			want{vtpm: true, version: "1.2", model: "tpm-tis", vFrom: "image", mFrom: "default", traits: []string{t12}}},

		// --- conflicts
		{"version conflict", "_get_unique_flavor_image_meta -> FlavorImageConflict", Zed, fl("hw:tpm_version=2.0"), im("hw_tpm_version=1.2"),
			want{kind: KindFlavorImageConflict, stage: StageScheduling,
				msg: "Flavor f1 has hw:tpm_version extra spec explicitly set to 2.0, conflicting with image img1 which has hw_tpm_version explicitly set to 1.2."}},
		{"model conflict", "FlavorImageConflict on tpm_model", Zed, fl("hw:tpm_version=2.0", "hw:tpm_model=tpm-tis"), im("hw_tpm_model=tpm-crb"),
			want{kind: KindFlavorImageConflict, stage: StageScheduling,
				msg: "Flavor f1 has hw:tpm_model extra spec explicitly set to tpm-tis, conflicting with image img1 which has hw_tpm_model explicitly set to tpm-crb."}},
		{"both conflict: version named first", "version read before model", Gazpacho, fl("hw:tpm_version=2.0", "hw:tpm_model=tpm-tis"), im("hw_tpm_version=1.2", "hw_tpm_model=tpm-crb"),
			want{kind: KindFlavorImageConflict, stage: StageScheduling,
				msg: "Flavor f1 has hw:tpm_version extra spec explicitly set to 2.0, conflicting with image img1 which has hw_tpm_version explicitly set to 1.2."}},
		{"model conflict without version is silent", "model never read when version is None", Zed, fl("hw:tpm_model=tpm-tis"), im("hw_tpm_model=tpm-crb"), want{noteHas: "without a TPM version"}},
		{"conflict on 2026.1 too", "same code on stable/2026.1 (prefix-aware message)", Gazpacho, fl("hw:tpm_version=1.2"), im("hw_tpm_version=2.0"),
			want{kind: KindFlavorImageConflict, stage: StageScheduling,
				msg: "Flavor f1 has hw:tpm_version extra spec explicitly set to 1.2, conflicting with image img1 which has hw_tpm_version explicitly set to 2.0."}},

		// --- invalid values
		{"flavor version 1.3", "get_vtpm_constraint: Invalid TPM version %r", Zed, fl("hw:tpm_version=1.3"), im(),
			want{kind: KindInvalidVersion, stage: StageScheduling, msg: "Invalid TPM version '1.3'. Allowed values: 1.2, 2.0.", noteHas: "below microversion 2.86"}},
		{"flavor version 2", "string compare, no numeric coercion", Zed, fl("hw:tpm_version=2"), im(),
			want{kind: KindInvalidVersion, stage: StageScheduling, msg: "Invalid TPM version '2'. Allowed values: 1.2, 2.0."}},
		{"flavor model foo", "get_vtpm_constraint: Invalid TPM model %r", Zed, fl("hw:tpm_version=2.0", "hw:tpm_model=foo"), im(),
			want{kind: KindInvalidModel, stage: StageScheduling, msg: "Invalid TPM model 'foo'. Allowed values: tpm-tis, tpm-crb."}},
		{"flavor model with quote uses double quotes", "Python %r of a str holding '", Zed, fl("hw:tpm_version=2.0", "hw:tpm_model=it's"), im(),
			want{kind: KindInvalidModel, stage: StageScheduling, msg: `Invalid TPM model "it's". Allowed values: tpm-tis, tpm-crb.`}},
		{"CRB with 1.2 on flavor", "CRB is only valid with TPM version 2.0", Zed, fl("hw:tpm_version=1.2", "hw:tpm_model=tpm-crb"), im(),
			want{kind: KindCRBNeedsTPM2, stage: StageScheduling, msg: "TPM model CRB is only valid with TPM version 2.0."}},
		{"CRB with 1.2 on image", "same rule, image side", Dalmatian, fl(), im("hw_tpm_version=1.2", "hw_tpm_model=tpm-crb"),
			want{kind: KindCRBNeedsTPM2, stage: StageScheduling, msg: "TPM model CRB is only valid with TPM version 2.0."}},
		{"CRB image + 1.2 flavor", "merged pair is checked", Zed, fl("hw:tpm_version=1.2"), im("hw_tpm_model=tpm-crb"),
			want{kind: KindCRBNeedsTPM2, stage: StageScheduling, msg: "TPM model CRB is only valid with TPM version 2.0."}},
		{"invalid version checked before model conflict", "version validated before model is read", Zed, fl("hw:tpm_version=3", "hw:tpm_model=tpm-tis"), im("hw_tpm_model=tpm-crb"),
			want{kind: KindInvalidVersion, stage: StageScheduling, msg: "Invalid TPM version '3'. Allowed values: 1.2, 2.0."}},
		{"image version 1.3 is a 400 at create", "ImageMetaProps.hw_tpm_version is TPMVersionField; _get_image_meta_obj", Zed, fl(), im("hw_tpm_version=1.3"),
			want{kind: KindInvalidImageMetadata, stage: StageServerCreate, msg: "Invalid image metadata. Error: Field value 1.3 is invalid"}},
		{"image bad model is a 400 even without version", "ImageMeta.from_dict coerces every known field", Zed, fl("hw:tpm_version=2.0"), im("hw_tpm_model=tis"),
			want{kind: KindInvalidImageMetadata, stage: StageServerCreate, msg: "Invalid image metadata. Error: Field value tis is invalid"}},
		{"image error wins over flavor conflict", "API runs before the scheduler", Zed, fl("hw:tpm_version=1.2"), im("hw_tpm_version=2"),
			want{kind: KindInvalidImageMetadata, stage: StageServerCreate, msg: "Invalid image metadata. Error: Field value 2 is invalid"}},

		// --- traits per release
		{"2024.1 version trait only", "unmaintained/2024.1 _translate_vtpm_request", Caracal, fl("hw:tpm_version=2.0", "hw:tpm_model=tpm-crb"), im(),
			want{vtpm: true, version: "2.0", model: "tpm-crb", vFrom: "flavor", mFrom: "flavor", traits: []string{t20}}},
		{"2024.2 adds TIS trait", "stable/2024.2+ model trait required", Dalmatian, fl("hw:tpm_version=2.0"), im(),
			want{vtpm: true, version: "2.0", model: "tpm-tis", vFrom: "flavor", mFrom: "default", traits: []string{t20, tis}}},
		{"2025.2 CRB trait", "model_trait = TPM_CRB for crb", Flamingo, fl(), im("hw_tpm_version=2.0", "hw_tpm_model=tpm-crb"),
			want{vtpm: true, version: "2.0", model: "tpm-crb", vFrom: "image", mFrom: "image", traits: []string{t20, crb}}},
		{"2025.2 ignores secret security", "hw:tpm_secret_security added in 2026.1 (7446ba158e)", Flamingo, fl("hw:tpm_version=2.0", "hw:tpm_secret_security=host"), im(),
			want{vtpm: true, version: "2.0", model: "tpm-tis", vFrom: "flavor", mFrom: "default", traits: []string{t20, tis}, noteHas: "needs Nova 2026.1"}},
		{"2026.1 default mode user", "secret_security or 'user'", Gazpacho, fl("hw:tpm_version=2.0"), im(),
			want{vtpm: true, version: "2.0", model: "tpm-tis", vFrom: "flavor", mFrom: "default", mode: "user", traits: []string{t20, user, tis}}},
		{"2026.1 host mode", "root_required SECRET_SECURITY_HOST", Gazpacho, fl("hw:tpm_version=2.0", "hw:tpm_model=tpm-crb", "hw:tpm_secret_security=host"), im(),
			want{vtpm: true, version: "2.0", model: "tpm-crb", vFrom: "flavor", mFrom: "flavor", mode: "host", traits: []string{t20, crb, host}}},
		{"2026.1 deployment mode", "root_required SECRET_SECURITY_DEPLOYMENT", Gazpacho, fl("hw:tpm_secret_security=deployment"), im("hw_tpm_version=1.2"),
			want{vtpm: true, version: "1.2", model: "tpm-tis", vFrom: "image", mFrom: "default", mode: "deployment", traits: []string{t12, depl, tis}, noteHas: "service_user"}},
		{"2026.1 unknown mode", "RequestFilterFailed -> NoValidHost", Gazpacho, fl("hw:tpm_version=2.0", "hw:tpm_secret_security=vault"), im(),
			want{kind: KindUnsupportedSecretSec, stage: StageScheduling, msg: "No valid host was found. Scheduling failed: TPM secret security 'vault' is not supported."}},
		{"2026.1 empty mode is user", "get_tpm_secret_security_constraint(...) or 'user'", Hibiscus, fl("hw:tpm_version=2.0", "hw:tpm_secret_security="), im(),
			want{vtpm: true, version: "2.0", model: "tpm-tis", vFrom: "flavor", mFrom: "default", mode: "user", traits: []string{t20, user, tis}}},
		{"image secret security property ignored", "no hw_tpm_secret_security image property exists", Gazpacho, fl("hw:tpm_version=2.0"), im("hw_tpm_secret_security=host"),
			want{vtpm: true, version: "2.0", model: "tpm-tis", vFrom: "flavor", mFrom: "default", mode: "user", traits: []string{t20, user, tis}, noteHas: "not read by Nova"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(c.f, c.i, c.rel)
			w := c.w
			if d.VTPM != w.vtpm || d.Version != w.version || d.Model != w.model || d.VersionFrom != w.vFrom || d.ModelFrom != w.mFrom || string(d.SecretSecurity) != w.mode {
				t.Errorf("[%s] got vtpm=%v %s/%s from %s/%s mode %q; want vtpm=%v %s/%s from %s/%s mode %q", c.cite,
					d.VTPM, d.Version, d.Model, d.VersionFrom, d.ModelFrom, d.SecretSecurity, w.vtpm, w.version, w.model, w.vFrom, w.mFrom, w.mode)
			}
			wantTraits := w.traits
			if wantTraits == nil {
				wantTraits = []string{}
			}
			if !reflect.DeepEqual(d.RequiredTraits, sorted(wantTraits)) {
				t.Errorf("[%s] traits %v, want %v", c.cite, d.RequiredTraits, sorted(wantTraits))
			}
			switch {
			case w.kind == "" && d.Error != nil:
				t.Errorf("[%s] unexpected error %s: %s", c.cite, d.Error.Kind, d.Error.Message)
			case w.kind != "" && d.Error == nil:
				t.Errorf("[%s] want error %s, got none", c.cite, w.kind)
			case w.kind != "":
				if d.Error.Kind != w.kind || d.Error.Stage != w.stage || d.Error.Message != w.msg {
					t.Errorf("[%s] error %s/%s %q, want %s/%s %q", c.cite, d.Error.Kind, d.Error.Stage, d.Error.Message, w.kind, w.stage, w.msg)
				}
			}
			if w.noteHas != "" && !strings.Contains(strings.Join(d.Notes, "\n"), w.noteHas) {
				t.Errorf("[%s] notes %q lack %q", c.cite, d.Notes, w.noteHas)
			}
		})
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases; the rules need at least 40", len(cases))
	}
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestUnsupportedOperations(t *testing.T) {
	names := func(ops []Operation) string {
		var n []string
		for _, o := range ops {
			n = append(n, o.Name)
		}
		return strings.Join(n, ",")
	}
	cases := []struct {
		rel  Release
		mode string
		want string
	}{
		// compute/api.py reject_vtpm_instances on victoria-eol .. stable/2025.2
		{Victoria, "", "rebuild,shelve,rescue,evacuate,live-migration"},
		{Flamingo, "", "rebuild,shelve,rescue,evacuate,live-migration"},
		// stable/2026.1 reject_legacy_vtpm_live_migration allows host mode only
		{Gazpacho, "user", "rebuild,shelve,rescue,evacuate,live-migration,resize-across-deployment"},
		{Gazpacho, "host", "rebuild,shelve,rescue,evacuate,resize-across-deployment"},
		{Gazpacho, "deployment", "rebuild,shelve,rescue,evacuate,live-migration,resize-across-deployment"},
	}
	for _, c := range cases {
		if got := names(UnsupportedOperations(c.rel, SecretMode(c.mode))); got != c.want {
			t.Errorf("%s/%s: %s, want %s", c.rel, c.mode, got, c.want)
		}
	}
	op := UnsupportedOperations(Zed, "")[0]
	if op.Message != "Operation 'rebuild' not supported for vTPM-enabled instance (<server-uuid>)." {
		t.Errorf("message %q", op.Message)
	}
}

func TestValidateExtraSpec(t *testing.T) {
	cases := []struct {
		key, val string
		rel      Release
		kind     ErrorKind
		msg      string
	}{
		// test_validators.py valid and invalid values
		{"hw:tpm_model", "tpm-tis", Zed, "", ""},
		{"hw:tpm_model", "tpm-crb", Zed, "", ""},
		{"hw:tpm_version", "1.2", Zed, "", ""},
		{"hw:tpm_model", "tpm-foo", Zed, KindInvalidExtraSpec, "Validation failed; 'tpm-foo' is not one of: tpm-tis, tpm-crb."},
		{"hw:tpm_version", "4.2", Zed, KindInvalidExtraSpec, "Validation failed; '4.2' is not one of: 1.2, 2.0."},
		{"hw:tpm_secret_security", "bar", Gazpacho, KindInvalidExtraSpec, "Validation failed; 'bar' is not one of: user, host, deployment."},
		{"hw:tpm_secret_security", "host", Gazpacho, "", ""},
		// hw is a registered namespace: unknown keys refused (validators.py)
		{"hw:tpm_secret_security", "host", Flamingo, KindUnknownExtraSpec, "Validation failed; extra spec 'hw:tpm_secret_security' does not appear to be a valid extra spec."},
		{"hw:tpm_version", "2.0", Ussuri, KindUnknownExtraSpec, "Validation failed; extra spec 'hw:tpm_version' does not appear to be a valid extra spec."},
		{"hw:cpu_policy", "whatever", Zed, "", ""},
	}
	for _, c := range cases {
		e := ValidateExtraSpec(c.key, c.val, c.rel)
		if c.kind == "" {
			if e != nil {
				t.Errorf("%s=%s on %s: unexpected %q", c.key, c.val, c.rel, e.Message)
			}
			continue
		}
		if e == nil || e.Kind != c.kind || e.Message != c.msg || e.Stage != StageFlavorUpdate {
			t.Errorf("%s=%s on %s: got %+v, want %s %q", c.key, c.val, c.rel, e, c.kind, c.msg)
		}
	}
}

func TestPyRepr(t *testing.T) {
	for in, want := range map[string]string{
		"1.3": "'1.3'", "it's": `"it's"`, `a'b"c`: `'a\'b"c'`, "x\ny": `'x\ny'`, `\`: `'\\'`,
	} {
		if got := pyRepr(in); got != want {
			t.Errorf("pyRepr(%q)=%s, want %s", in, got, want)
		}
	}
}
