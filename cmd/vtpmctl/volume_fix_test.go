package main

import "testing"

// TestVolumeFixCommand: the command image set prints for the volumes
// created from the image before the change repeats the change's flags.
func TestVolumeFixCommand(t *testing.T) {
	o := &imageChangeOptions{propertyChange: propertyChange{Set: true, Version: "2.0", Model: "tpm-crb", Windows: true}}
	if got, want := volumeFixCommand(o, "i1", true), "vtpmctl volume set --select image_id=i1 --tpm-version 2.0 --tpm-model tpm-crb --windows --all-projects"; got != want {
		t.Errorf("fix command %q, want %q", got, want)
	}
	if got, want := volumeFixCommand(&imageChangeOptions{}, "i1", false), "vtpmctl volume unset --select image_id=i1"; got != want {
		t.Errorf("fix command %q, want %q", got, want)
	}
}
