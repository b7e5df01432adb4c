package nova

import (
	"sort"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/editdist"
)

// A near miss is a key Nova does not read that is a vTPM key mistyped:
// one edit away (hw_tpm_verion), without its prefix (tpm_version), or in
// the other object's spelling (hw_tpm_version as a flavor extra spec,
// hw:tpm_version as an image property). Nova ignores such a key without
// a word: the guest silently gets no vTPM, or the default model or mode.

// KeyKind is where a key lives: an image's properties (a volume's image
// metadata too) or a flavor's extra specs.
type KeyKind string

const (
	ImageKeys  KeyKind = "image"
	FlavorKeys KeyKind = "flavor"
)

// vtpmKeys are the vTPM keys Nova reads from each kind of object, on any
// release that has them: hw:tpm_secret_security is read from 2026.1 (an
// older Nova refuses or ignores it; a typo of it is a typo still). No
// release reads an image hw_tpm_secret_security (resolve.go notes it).
var vtpmKeys = map[KeyKind][]string{
	ImageKeys:  {ImageTPMVersion, ImageTPMModel},
	FlavorKeys: {FlavorTPMVersion, FlavorTPMModel, FlavorTPMSecretSecurity},
}

// keyPrefix is each kind's namespace: hw_ for image properties, hw: for
// flavor extra specs.
var keyPrefix = map[KeyKind]string{ImageKeys: "hw_", FlavorKeys: "hw:"}

// NearMissReason says how a key missed its vTPM key.
type NearMissReason string

const (
	MissTypo      NearMissReason = "typo"           // one edit away (a letter, a swap, the case)
	MissPrefix    NearMissReason = "missing_prefix" // tpm_version for hw_tpm_version or hw:tpm_version
	MissOtherKind NearMissReason = "other_kind"     // an image property spelled as a flavor extra spec, or the reverse
)

// NearMissEffect is what ignoring the key does to a decision (NearMisses).
type NearMissEffect string

const (
	// EffectNoVTPM: the key would have asked for the vTPM; without it
	// Nova gives none.
	EffectNoVTPM NearMissEffect = "no_vtpm"
	// EffectDefaultModel: the guest gets the default model instead.
	EffectDefaultModel NearMissEffect = "default_model"
	// EffectDefaultSecretSecurity: the guest gets the default mode instead.
	EffectDefaultSecretSecurity NearMissEffect = "default_secret_security"
)

// NearMiss is one key Nova ignores that stands for a vTPM key.
type NearMiss struct {
	Key    string         `json:"key"`          // as given
	Kind   KeyKind        `json:"kind"`         // where it is: image or flavor
	Want   string         `json:"did_you_mean"` // the vTPM key Nova reads
	Reason NearMissReason `json:"reason"`
	// Effect is what the missing key does to the decision, "" when the
	// value came from elsewhere anyway (NearMisses; empty from
	// NearMissKeys, which has no decision).
	Effect NearMissEffect `json:"effect,omitempty"`
}

// NearMissKeys are the keys of an object of kind that Nova ignores but
// that stand for one of its vTPM keys, sorted by key. A vTPM key of the
// object's kind is none, and neither is a key the object also has right
// (hw_tpm_version beside hw_tpm_verion: the typo is still reported, the
// right key is not).
func NearMissKeys(keys []string, kind KeyKind) []NearMiss {
	targets := vtpmKeys[kind]
	var out []NearMiss
	for _, k := range keys {
		if contains(targets, k) {
			continue
		}
		if m, ok := nearMiss(k, kind); ok {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// NearMissesIn is NearMissKeys of a property or extra spec map.
func NearMissesIn(m map[string]string, kind KeyKind) []NearMiss {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return NearMissKeys(keys, kind)
}

// NearMissesAfter are the near misses of an object whose keys are current
// once changes are made: what an image, volume or flavor will still carry
// that Nova ignores.
func NearMissesAfter(current map[string]string, changes []Change, kind KeyKind) []NearMiss {
	return NearMissesIn(Apply(current, changes), kind)
}

// nearMiss says which vTPM key of kind k stands for, and how it missed.
// The other kind's spelling is looked for first (hw:tpm_version and
// hw_tpm_version are also one edit apart), then the missing prefix, then
// a typo; at each step the closest key, the first in vtpmKeys' order on
// a tie.
func nearMiss(k string, kind KeyKind) (NearMiss, bool) {
	lower := strings.ToLower(k)
	other := ImageKeys
	if kind == ImageKeys {
		other = FlavorKeys
	}
	body, prefixed := trimPrefix(lower)
	steps := []struct {
		reason NearMissReason
		typed  string
		target func(t string) string
		ok     bool
	}{
		{MissOtherKind, body, bodyOf, prefixed == keyPrefix[other]},
		{MissPrefix, lower, bodyOf, prefixed == ""},
		{MissTypo, lower, func(t string) string { return t }, true},
	}
	for _, s := range steps {
		if !s.ok {
			continue
		}
		best, bestD := "", 2 // one edit at most
		for _, t := range vtpmKeys[kind] {
			if d := editdist.Distance(s.typed, s.target(t)); d < bestD {
				best, bestD = t, d
			}
		}
		if best != "" {
			return NearMiss{Key: k, Kind: kind, Want: best, Reason: s.reason}, true
		}
	}
	return NearMiss{}, false
}

// trimPrefix splits a lower-case key into its body and its prefix (hw_,
// hw: or "").
func trimPrefix(k string) (body, prefix string) {
	for _, p := range []string{"hw_", "hw:"} {
		if strings.HasPrefix(k, p) {
			return k[len(p):], p
		}
	}
	return k, ""
}

// bodyOf is a vTPM key without its prefix: tpm_version.
func bodyOf(t string) string {
	b, _ := trimPrefix(t)
	return b
}

// NearMisses are the near misses of a flavor and an image (or a boot
// volume's image metadata) Nova decided d from, each with its effect on
// d: a missed version key leaves the guest without a vTPM when nothing
// else asked for one, a missed model or mode leaves it the default.
func NearMisses(f Flavor, i Image, d Decision) []NearMiss {
	out := append(NearMissesIn(f.ExtraSpecs, FlavorKeys), NearMissesIn(i.Properties, ImageKeys)...)
	for n := range out {
		switch out[n].Want {
		case FlavorTPMVersion, ImageTPMVersion:
			if !d.VTPM && d.Error == nil && d.Release.SupportsVTPM() {
				out[n].Effect = EffectNoVTPM
			}
		case FlavorTPMModel, ImageTPMModel:
			if d.VTPM && d.ModelFrom == "default" {
				out[n].Effect = EffectDefaultModel
			}
		case FlavorTPMSecretSecurity:
			if d.VTPM && d.SecretSecurityFrom == "default" {
				out[n].Effect = EffectDefaultSecretSecurity
			}
		}
	}
	return out
}
