package vtpmsecret

import "github.com/vtpmctl/vtpmctl/domain/nova"

// mut is secret i, kept whole from now on, to change in place: tests
// build facts once and vary one field.
func (t *SecretTable) mut(i int) *Secret {
	if p := t.rows[i]; !p.whole {
		s := t.unpack(p)
		if t.whole == nil {
			t.whole = map[int32]*Secret{}
		}
		t.rows[i], t.whole[int32(i)] = packedSecret{whole: true}, &s
	}
	return t.whole[int32(i)]
}

// setMode sets guest i's secret mode (the list is rebuilt: a test's few).
func setMode(f *Facts, i int, m nova.SecretMode) {
	gs := f.Guests.Slice()
	gs[i].Mode = m
	f.Guests = nova.NewGuestList(gs...)
}
