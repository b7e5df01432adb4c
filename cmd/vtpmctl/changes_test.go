package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// TestPrintChangesPartial: a write that failed after some keys reached
// the cloud is "partly changed" (the written keys keep their action),
// never "not changed"; the exit is still 1.
func TestPrintChangesPartial(t *testing.T) {
	boom := errors.New("Cinder 500")
	plans := []nova.ObjectPlan{
		{ID: "v1", Name: "win", Changes: []nova.Change{
			{Object: "win", Key: "hw_tpm_version", Old: "1.2", New: "2.0", Action: nova.Replaced},
			{Object: "win", Key: "os_type", Old: "windows", Action: nova.Removed}},
			Err: &nova.PartialWriteError{Written: []string{"hw_tpm_version"}, NotWritten: []string{"os_type"}, Err: boom}},
		{ID: "v2", Name: "lin", Changes: []nova.Change{
			{Object: "lin", Key: "hw_tpm_version", New: "2.0", Action: nova.Added}}, Err: boom},
	}
	var out, errOut bytes.Buffer
	err := printChanges(&IOStreams{Out: &out, Err: &errOut}, &globalOptions{Output: output.Options{Format: "csv"}}, plans, false)
	var re *reportedError
	if !errors.As(err, &re) || re.code != exitFailed {
		t.Errorf("err %v, want exit %d", err, exitFailed)
	}
	for _, want := range []string{"win,hw_tpm_version,1.2,2.0,replaced", "win,os_type,windows,,failed", "lin,hw_tpm_version,,2.0,failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{"vtpmctl: win: partly changed: hw_tpm_version written, os_type not: Cinder 500", "vtpmctl: lin: not changed: Cinder 500"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "win: not changed") {
		t.Errorf("a partly written volume reported as not changed:\n%s", errOut.String())
	}
}
