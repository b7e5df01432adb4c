package nova

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestResolveRelease(t *testing.T) {
	det := func(mv Microversion) *Detection { d := DetectRelease(mv); return &d }
	for _, tc := range []struct {
		name       string
		ev         ReleaseEvidence
		want       Release
		warn, note string // substrings; warn "" means no warning
		wantErr    bool
		candidates int
	}{
		{"flag wins over everything", ReleaseEvidence{Flag: Zed, Installed: Epoxy, Cloud: det(Microversion{2, 96})}, Zed, "", "given by nova_release; the cloud's compute API maximum is 2.96", false, 1},
		{"installed package", ReleaseEvidence{Installed: Epoxy, Cloud: det(Microversion{2, 93})}, Epoxy, "", "installed nova package", false, 1},
		{"cloud, unique", ReleaseEvidence{Cloud: det(Microversion{2, 93})}, Zed, "", "detected from the compute API maximum microversion 2.93", false, 1},
		{"2.96: rules differ", ReleaseEvidence{Cloud: det(Microversion{2, 96})}, Dalmatian, "whose vTPM rules differ", "assuming 2024.2", false, 2},
		{"2.100: same rules, no warning", ReleaseEvidence{Cloud: det(Microversion{2, 100})}, Flamingo, "", "give the same answer here", false, 2},
		{"2.87: Ussuri has no vTPM", ReleaseEvidence{Cloud: det(Microversion{2, 87})}, Victoria, "Ussuri", "pass nova_release", false, 2},
		{"development build", ReleaseEvidence{Cloud: det(Microversion{2, 102})}, Gazpacho, "", "development build", false, 1},
		{"nothing", ReleaseEvidence{Field: FieldFromRelease}, ReleaseUnknown, "", "", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ResolveRelease(tc.ev)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "from_release") {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil || r.Release != tc.want || len(r.Candidates) != tc.candidates {
				t.Fatalf("got %v %v %v", r.Release, r.Candidates, err)
			}
			if w := r.Warning(nil); (tc.warn == "") != (w == "") || !strings.Contains(w, tc.warn) {
				t.Errorf("warning %q, want %q", w, tc.warn)
			}
			if n := r.Note(nil); !strings.Contains(n, tc.note) {
				t.Errorf("note %q, want %q", n, tc.note)
			}
		})
	}
	// the caller's question decides: a request the candidates agree on
	r, _ := ResolveRelease(ReleaseEvidence{Cloud: det(Microversion{2, 96})})
	if w := r.Warning(func(a, b Release) bool { return false }); w != "" {
		t.Errorf("warning for a question the candidates agree on: %q", w)
	}
}

func TestReleaseText(t *testing.T) {
	var v struct {
		R Release `json:"r"`
		U Release `json:"u"`
	}
	if err := json.Unmarshal([]byte(`{"r":"Dalmatian","u":""}`), &v); err != nil || v.R != Dalmatian || v.U != ReleaseUnknown {
		t.Fatalf("%+v %v", v, err)
	}
	b, _ := json.Marshal(v)
	if string(b) != `{"r":"2024.2","u":""}` {
		t.Errorf("marshal: %s", b)
	}
	if err := json.Unmarshal([]byte(`{"r":"victoria2"}`), &v); err == nil {
		t.Error("unknown release accepted")
	}
}

func TestReleaseLabel(t *testing.T) {
	if l := Label(Flamingo, []Release{Epoxy, Flamingo}); l != "2025.1 or 2025.2" {
		t.Errorf("ambiguous: %q", l)
	}
	if l := Label(Zed, []Release{Zed}); l != "zed" {
		t.Errorf("settled: %q", l)
	}
}

// TestReleaseFieldNamedByCaller: what to pass is the caller's field, in
// the error and in the note, spelled as the caller spells it (upgrade
// check's is its --from, not the release every other command takes).
func TestReleaseFieldNamedByCaller(t *testing.T) {
	spell := func(f Field) string { return "<" + string(f) + ">" }
	_, err := ResolveRelease(ReleaseEvidence{Field: FieldFromRelease})
	var ue *ReleaseUnknownError
	if !errors.As(err, &ue) || ue.Field != FieldFromRelease || ue.Message(spell) != "the Nova release is unknown: pass <from_release> (e.g. zed, 2024.2)" {
		t.Errorf("unknown: %v", err)
	}
	d := DetectRelease(Microversion{2, 96})
	r, _ := ResolveRelease(ReleaseEvidence{Field: FieldFromRelease, Cloud: &d})
	if w := r.WarningIn(nil, spell); !strings.HasSuffix(w, "pass <from_release> to settle") {
		t.Errorf("warning %q", w)
	}
	if n := r.NoteIn(nil, spell); n != r.WarningIn(nil, spell) {
		t.Errorf("note %q", n)
	}
	g, _ := ResolveRelease(ReleaseEvidence{Flag: Zed})
	if n := g.NoteIn(nil, spell); n != "given by <nova_release>" {
		t.Errorf("given: %q", n)
	}
}

// TestUpgradeFrom: one answer to "is --to an upgrade" for every command;
// a release the evidence leaves open is today's, not older.
func TestUpgradeFrom(t *testing.T) {
	d := DetectRelease(Microversion{2, 96}) // 2024.1 or 2024.2
	open, _ := ResolveRelease(ReleaseEvidence{Cloud: &d})
	settled, _ := ResolveRelease(ReleaseEvidence{Flag: Dalmatian})
	for _, tc := range []struct {
		name   string
		r      ResolvedRelease
		to     Release
		from   Release
		wantOK bool
	}{
		{"open candidate", open, Caracal, Caracal, true},
		{"newest candidate", open, Dalmatian, Dalmatian, true},
		{"newer", open, Gazpacho, Dalmatian, true},
		{"older than every candidate", open, Bobcat, Dalmatian, false},
		{"settled: older refused", settled, Caracal, Dalmatian, false},
	} {
		if from, ok := tc.r.UpgradeFrom(tc.to); from != tc.from || ok != tc.wantOK {
			t.Errorf("%s: UpgradeFrom(%s) = %s, %v; want %s, %v", tc.name, tc.to, from, ok, tc.from, tc.wantOK)
		}
	}
}
