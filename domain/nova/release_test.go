package nova

import (
	"reflect"
	"testing"
)

func TestDetectRelease(t *testing.T) {
	cases := []struct {
		mv   string
		want []Release
		pre  bool
	}{
		{"2.79", []Release{Ussuri}, false}, // Train: older than vTPM
		{"2.87", []Release{Ussuri, Victoria}, false},
		{"2.88", []Release{Wallaby}, false},
		{"2.89", []Release{Xena}, true}, // development snapshot before Xena
		{"2.90", []Release{Xena, Yoga}, false},
		{"2.93", []Release{Zed}, false},
		{"2.95", []Release{Antelope, Bobcat}, false},
		{"2.96", []Release{Caracal, Dalmatian}, false},
		{"2.100", []Release{Epoxy, Flamingo}, false},
		{"2.103", []Release{Gazpacho}, false},
		{"2.104", []Release{Hibiscus}, false},
		{"2.110", []Release{Hibiscus}, true},
	}
	for _, c := range cases {
		mv, err := ParseMicroversion(c.mv)
		if err != nil {
			t.Fatal(err)
		}
		d := DetectRelease(mv)
		if !reflect.DeepEqual(d.Candidates, c.want) || d.PreRelease != c.pre {
			t.Errorf("%s: %v pre=%v, want %v pre=%v", c.mv, d.Candidates, d.PreRelease, c.want, c.pre)
		}
	}
}

func TestParseRelease(t *testing.T) {
	ok := map[string]Release{
		"zed": Zed, "Zed": Zed, "26": Zed, "nova-26": Zed, "2024.2": Dalmatian, "dalmatian": Dalmatian,
		"2026.1": Gazpacho, "gazpacho": Gazpacho, " 2023.1 ": Antelope, "train": ReleaseUnknown, "20": Ussuri, "ussuri": Ussuri,
	}
	for in, want := range ok {
		got, err := ParseRelease(in)
		if want == ReleaseUnknown {
			if err == nil {
				t.Errorf("%q: want error, got %v", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: got %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "2030.1", "x", "2.0"} {
		if _, err := ParseRelease(bad); err == nil {
			t.Errorf("%q: want error", bad)
		}
	}
}

func TestReleaseNames(t *testing.T) {
	if Zed.String() != "zed" || Dalmatian.String() != "2024.2" || Gazpacho.Long() != "2026.1 Gazpacho (nova 33)" || Ussuri.Long() != "Ussuri or older (nova 21)" {
		t.Errorf("names: %s %s %s %s", Zed, Dalmatian, Gazpacho.Long(), Ussuri.Long())
	}
	for _, r := range Releases() {
		back, err := ParseRelease(r.String())
		if err != nil || back != r {
			t.Errorf("round trip %s: %v %v", r, back, err)
		}
	}
}

func TestParseMicroversion(t *testing.T) {
	for _, bad := range []string{"", "2", "2.", ".5", "a.b", "2.-1", "0.1", "latest"} {
		if _, err := ParseMicroversion(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	a, _ := ParseMicroversion("2.9")
	b, _ := ParseMicroversion("2.10")
	if !a.Less(b) || b.Less(a) || a.String() != "2.9" {
		t.Errorf("ordering broken")
	}
}

func TestParseKeyValues(t *testing.T) {
	m, err := ParseKeyValues([]string{"a=b=c", "e=", "a=b=c"})
	if err != nil || m["a"] != "b=c" || m["e"] != "" {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range [][]string{{"novalue"}, {"=x"}, {"a b=c"}, {"a=1", "a=2"}} {
		if _, err := ParseKeyValues(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParseKeyValue: the parser must never panic, and whatever it accepts
// must round-trip.
func FuzzParseKeyValue(f *testing.F) {
	for _, s := range []string{"hw_tpm_version=2.0", "hw:tpm_model=tpm-crb", "=", "a==", "k=v=w", "", "sp ace=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, v, err := ParseKeyValue(s)
		if err != nil {
			return
		}
		if k+"="+v != s || k == "" {
			t.Fatalf("%q -> %q,%q", s, k, v)
		}
		// Whatever parses must also be decidable without panicking.
		for _, r := range []Release{Ussuri, Zed, Dalmatian, Gazpacho} {
			Decide(Flavor{Name: "f", ExtraSpecs: map[string]string{"hw:tpm_version": v, k: v}},
				Image{Name: "i", Properties: map[string]string{k: v}}, r)
		}
	})
}

func FuzzParseMicroversion(f *testing.F) {
	for _, s := range []string{"2.86", "2.100", "x", "1.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mv, err := ParseMicroversion(s)
		if err != nil {
			return
		}
		again, err := ParseMicroversion(mv.String())
		if err != nil || again != mv {
			t.Fatalf("%q -> %v -> %v %v", s, mv, again, err)
		}
		DetectRelease(mv)
	})
}
