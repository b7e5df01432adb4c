package flavor

import (
	"context"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
	"github.com/vtpmctl/vtpmctl/internal/output/outputtest"
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
	names := func(l Listed) map[string]Row {
		m := map[string]Row{}
		for _, f := range l.Flavors {
			m[f.Name] = f
		}
		return m
	}
	all, err := List(context.Background(), sess, ListRequest{})
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
	vtpm, err := List(context.Background(), sess, ListRequest{VTPM: nova.WithVTPM})
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

// A list's table and its JSON are one schema: the columns are the keys
// of the document's rows in order and each row's cells their values (-c
// names the same fields in every format).
func TestListTableIsItsJSON(t *testing.T) {
	full := Listed{ListSchema, []Row{{ID: "i", Name: "n", VCPUs: 2, RAM: 4096, Disk: 40, IsPublic: true, TPMVersion: "2.0", TPMModel: "m", SecretSecurity: "host"}}}
	for _, l := range []Listed{full, {Flavors: []Row{}}} {
		outputtest.TableIsJSON(t, l.Table(), l.Flavors, "flavors")
	}
}
