package predict

import (
	"context"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// TestListFlavors: one flavor list (the strict fixture cloud answers
// nothing else), kept by whether a flavor has a hw:tpm_* spec; the
// fixture's fx-vtpm asks for 2.0 tpm-crb, fx-plain for nothing.
func TestListFlavors(t *testing.T) {
	c := fakecloud.New(t).Standard()
	sess, err := cloud.Connect(context.Background(), cloud.Options{Cloud: "fake", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	names := func(l FlavorList) map[string]ListedFlavor {
		m := map[string]ListedFlavor{}
		for _, f := range l.Flavors {
			m[f.Name] = f
		}
		return m
	}
	all, err := ListFlavors(context.Background(), sess, FlavorListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	m := names(all)
	if v := m["fx-vtpm"]; v.TPMVersion != "2.0" || v.TPMModel != "tpm-crb" || v.VCPUs == 0 {
		t.Errorf("fx-vtpm %+v", v)
	}
	if _, ok := m["fx-plain"]; !ok {
		t.Errorf("fx-plain missing from %v", m)
	}
	vtpm, err := ListFlavors(context.Background(), sess, FlavorListRequest{VTPM: WithVTPM})
	if err != nil {
		t.Fatal(err)
	}
	if m := names(vtpm); len(m) == 0 || m["fx-plain"].Name != "" || m["fx-vtpm"].Name == "" {
		t.Errorf("--vtpm kept %v", m)
	}
	if n := len(c.SentTo("GET", "/compute/v2.1/flavors/detail")); n != 2 {
		t.Errorf("%d flavor lists for two calls, want 2", n)
	}
}
