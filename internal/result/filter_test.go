package result

import (
	"errors"
	"slices"
	"testing"
)

func TestWorst(t *testing.T) {
	for _, c := range []struct {
		in   []Status
		want Status
	}{
		{nil, Pass},
		{[]Status{Pass, Skip}, Skip},
		{[]Status{Skip, Warn, Pass}, Warn},
		{[]Status{Warn, Fail, Skip}, Fail},
		{[]Status{"info"}, Pass}, // a word no check uses ranks as nothing found
	} {
		if got := Worst(c.in...); got != c.want {
			t.Errorf("Worst(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseFilter(t *testing.T) {
	for _, c := range []struct {
		words   []string
		want    Filter
		unknown string
	}{
		{nil, nil, ""},
		{[]string{"fail,warn"}, Filter{Fail, Warn}, ""},
		{[]string{"fail", "WARN", "fail"}, Filter{Fail, Warn}, ""},
		{[]string{"fail, skip"}, Filter{Fail, Skip}, ""},
		{[]string{"fail,bogus"}, nil, "bogus"},
		{[]string{"fail,"}, nil, ""},
	} {
		got, err := ParseFilter(c.words)
		var u *UnknownStatusError
		switch {
		case c.unknown != "" || (c.want == nil && c.words != nil):
			if !errors.As(err, &u) || (c.unknown != "" && u.Word != c.unknown) {
				t.Errorf("%q: want an unknown status error for %q, got %v", c.words, c.unknown, err)
			}
		case err != nil || !slices.Equal(got, c.want):
			t.Errorf("%q = %v, %v; want %v", c.words, got, err, c.want)
		}
	}
	_, err := ParseFilter([]string{"bogus"})
	if want := `unknown status "bogus" (choose from fail, warn, skip, pass)`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if !(Filter(nil)).Keeps(Pass) || (Filter{Fail}).Keeps(Warn) || !(Filter{Fail, Warn}).Keeps(Warn) {
		t.Error("Keeps: the zero filter keeps all, a set keeps its own")
	}
}
