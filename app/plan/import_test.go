package plan

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
)

const testdata = "../../domain/migration/testdata/"

// noCloud is a Connect for an import that must not connect.
func noCloud(t *testing.T) Connect {
	return func(context.Context) (*cloud.Session, error) {
		t.Fatal("connected to a cloud")
		return nil, nil
	}
}

// TestImportFromFiles: the export and a govc file joined, the release
// pinned or the default, without a cloud; Write writes the plan with the
// caller's header and counts the skipped and malformed rows.
func TestImportFromFiles(t *testing.T) {
	for _, tc := range []struct {
		release nova.Release
		want    nova.Release
		from    ReleaseSource
	}{{nova.Zed, nova.Zed, ReleasePinned}, {nova.ReleaseUnknown, migration.DefaultRelease, ReleaseDefault}} {
		req := ImportRequest{RVTools: testdata + "RVTools_tabvInfo-40.csv", TPMModel: "tpm-crb",
			Govc:    []GovcFile{{File: testdata + "vcsim/govc-vm.info-5vms.vcsim.json", Given: "5vms.json"}},
			Release: nova.ReleaseEvidence{Flag: tc.release, Field: nova.FieldRelease}}
		res, err := Import(context.Background(), noCloud(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Release != tc.want || res.From != tc.from || len(res.VMs) == 0 || len(res.RowErrors) != 1 || len(res.Skipped) == 0 || len(res.Unmatched) == 0 {
			t.Errorf("%s: release %s from %d, %d VMs, %d bad rows, %d skipped, unmatched %v", tc.release, res.Release, res.From, len(res.VMs), len(res.RowErrors), len(res.Skipped), res.Unmatched)
		}
		var b bytes.Buffer
		sum, err := res.Write(context.Background(), &b, []string{"a header"})
		if err != nil || sum.VMs != len(res.VMs) || sum.Skipped != len(res.Skipped) || sum.RowErrors != 1 {
			t.Errorf("summary %+v %v", sum, err)
		}
		p, err := migration.ReadPlan(bytes.NewReader(b.Bytes()), "plan.yaml")
		if err != nil || !strings.HasPrefix(b.String(), "# a header\n") || p.Source.NovaRelease != tc.want ||
			p.Source.RVTools != req.RVTools || len(p.Source.Govc) != 1 || p.Source.Govc[0] != "5vms.json" {
			t.Errorf("plan %v: %+v\n%.200s", err, p.Source, b.String())
		}
	}
}

// TestImportTypedErrors: what the caller words with its own names: each
// input that cannot be read, a vCenter it cannot use (before any
// connection), a release it cannot settle. What was learnt before the
// error is in the result.
func TestImportTypedErrors(t *testing.T) {
	govc := GovcFile{File: testdata + "vcsim/govc-vm.info-5vms.vcsim.json"}
	unnamed := GovcFile{File: testdata + "vcsim/govc-device.info-win2022-vtpm.vcsim.json", VCenter: "vc01"}
	for _, tc := range []struct {
		name  string
		req   ImportRequest
		input Input
		inner any
	}{
		{"rvtools missing", ImportRequest{RVTools: "/nonexistent.csv"}, InputRVTools, nil},
		{"vtpm column", ImportRequest{RVTools: testdata + "RVTools_tabvInfo-40.csv", VTPMColumn: "nope"}, InputRVTools, new(*migration.ColumnError)},
		{"strict row", ImportRequest{RVTools: testdata + "RVTools_tabvInfo-40.csv", Strict: true}, InputRVTools, new(*migration.RowError)},
		{"govc missing", ImportRequest{Govc: []GovcFile{{File: "/nonexistent.json"}}}, InputGovc, nil},
		{"govc unnamed", ImportRequest{Govc: []GovcFile{unnamed}}, InputGovcFrom, new(*migration.UnnamedVMError)},
		{"catalogue missing", ImportRequest{Govc: []GovcFile{govc}, Catalogue: "/nonexistent.yaml"}, InputCatalogue, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.TPMModel = "tpm-crb"
			_, err := Import(context.Background(), noCloud(t), tc.req)
			var ie *InputError
			if !errors.As(err, &ie) || ie.Input != tc.input {
				t.Fatalf("%#v, want an InputError of %s", err, tc.input)
			}
			if tc.inner != nil && !errors.As(ie.Err, tc.inner) {
				t.Errorf("%v: not a %T", ie.Err, tc.inner)
			}
		})
	}

	for _, tc := range []struct {
		name    string
		targets []VCenterTarget
		env     GovcEnv
		want    VCenterProblem
		value   string
	}{
		{"insecure", []VCenterTarget{{URL: "vc01"}}, GovcEnv{Insecure: "maybe", Username: "u"}, BadInsecure, "maybe"},
		{"no GOVC_URL", []VCenterTarget{{FromEnv: true}}, GovcEnv{Username: "u"}, URLUnset, ""},
		{"not a URL", []VCenterTarget{{URL: "%zz"}}, GovcEnv{Username: "u"}, NotAURL, "https://%zz"},
		{"credentials given", []VCenterTarget{{URL: "https://u:pw@vc01/sdk"}}, GovcEnv{Username: "u"}, CredentialsGiven, ""},
		{"no user", []VCenterTarget{{URL: "vc01:8443"}}, GovcEnv{}, NoCredentials, "vc01:8443"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Import(context.Background(), noCloud(t), ImportRequest{TPMModel: "tpm-crb", VCenters: tc.targets, Env: tc.env})
			var ve *VCenterError
			if !errors.As(err, &ve) || ve.Problem != tc.want || ve.Value != tc.value || strings.Contains(err.Error(), "pw") {
				t.Errorf("%#v, want problem %d value %q", err, tc.want, tc.value)
			}
		})
	}

	// The release is settled first: a cloud that cannot be reached stops
	// the import before any file is read.
	down := errors.New("no cloud")
	res, err := Import(context.Background(), func(context.Context) (*cloud.Session, error) { return nil, down },
		ImportRequest{TPMModel: "tpm-crb", Cloud: true, RVTools: "/nonexistent.csv"})
	if !errors.Is(err, down) || res.From != ReleaseUnsettled || len(res.VMs) != 0 {
		t.Errorf("%v, %+v", err, res)
	}
	// A bad model is refused before anything.
	if _, err := Import(context.Background(), noCloud(t), ImportRequest{TPMModel: "tpm-xyz"}); err == nil || !errors.As(err, new(*nova.FieldError)) {
		t.Errorf("tpm-xyz: %v", err)
	}
	// The govc VMs left unmatched are in the result when the catalogue
	// then fails: the caller says them before the error.
	res, err = Import(context.Background(), noCloud(t), ImportRequest{TPMModel: "tpm-crb", RVTools: testdata + "RVTools_tabvInfo-40.csv", Govc: []GovcFile{govc}, Catalogue: "/nonexistent.yaml"})
	if !errors.As(err, new(*InputError)) || len(res.Unmatched) == 0 {
		t.Errorf("%v, unmatched %v", err, res.Unmatched)
	}
}
