package nova

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestGuestList(t *testing.T) {
	a := VTPMGuest{ServerID: "d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d", Name: "win11", ProjectID: "p1", UserID: "u1", Status: "ACTIVE",
		Host: "cmp1", Version: "2.0", Model: "tpm-crb", Mode: SecretUser, FlavorSecretSecurity: "user", Evidence: EvidenceFlavor}
	b := a
	b.ServerID, b.Host, b.Evidence = "srv-not-a-uuid", "", EvidenceImage
	c := a
	c.ServerID = "D1B0C3A2-7E6F-4A5B-9C8D-1E2F3A4B5C6E" // uppercase: kept whole, given back as written
	l := NewGuestList(a, b, c)
	if l.Len() != 3 || len(l.whole) != 2 {
		t.Fatalf("%d guests, %d whole; want 3, 2 (only the lowercase UUID packs)", l.Len(), len(l.whole))
	}
	want := []VTPMGuest{a, b, c}
	if got := l.Slice(); !reflect.DeepEqual(got, want) {
		t.Errorf("Slice gives\n%+v\nwant\n%+v", got, want)
	}
	// With leaves l as it was, and two lists made from l do not share
	// what they add
	d := a
	d.ServerID, d.ProjectID = "00000000-0000-4000-8000-000000000001", "p2"
	e := a
	e.ServerID, e.UserID = "00000000-0000-4000-8000-000000000002", "u9"
	l1, l2 := l.With(d), l.With(e)
	if l.Len() != 3 || !reflect.DeepEqual(l1.At(3), d) || !reflect.DeepEqual(l2.At(3), e) {
		t.Errorf("With: l has %d, l1's 4th %+v, l2's 4th %+v", l.Len(), l1.At(3), l2.At(3))
	}
	// With nothing to add is a list of its own too
	l3 := l.With()
	l3.Add(d)
	if l.Len() != 3 || l3.Len() != 4 {
		t.Errorf("an Add to l.With() reached l: l has %d, l.With() %d; want 3, 4", l.Len(), l3.Len())
	}
	js, err := json.Marshal(l)
	wantJS, _ := json.Marshal(want)
	if err != nil || string(js) != string(wantJS) {
		t.Errorf("JSON %s, %v; want %s", js, err, wantJS)
	}
	if empty, _ := json.Marshal(GuestList{}); string(empty) != "[]" {
		t.Errorf("an empty list is %s, want []", empty)
	}
}

// A list is a handle: a copy's Add is seen through the original, the zero
// list is empty and takes an Add.
func TestGuestListHandle(t *testing.T) {
	var zero GuestList
	if zero.Len() != 0 || len(zero.Slice()) != 0 {
		t.Fatal("the zero list is not empty")
	}
	g := VTPMGuest{ServerID: "d1b0c3a2-7e6f-4a5b-9c8d-1e2f3a4b5c6d", Host: "cmp1"}
	l := NewGuestList(g)
	c := l
	c.Add(VTPMGuest{ServerID: "srv2", Host: "cmp2"})
	if l.Len() != 2 || l.At(1).Host != "cmp2" {
		t.Errorf("the original sees %d guests after its copy's Add, want 2", l.Len())
	}
	zero.Add(g)
	if zero.Len() != 1 || !reflect.DeepEqual(zero.At(0), g) {
		t.Errorf("the zero list after an Add: %+v", zero.Slice())
	}
}
