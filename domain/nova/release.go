package nova

import (
	"fmt"
	"strconv"
	"strings"
)

// Release is a Nova release. The zero value is unknown; the order of the
// constants is the order of the releases, so rules compare with >=.
type Release int

const (
	ReleaseUnknown Release = iota
	// Ussuri stands for Ussuri and everything older: no emulated TPM at all.
	Ussuri
	Victoria
	Wallaby
	Xena
	Yoga
	Zed
	Antelope  // 2023.1
	Bobcat    // 2023.2
	Caracal   // 2024.1
	Dalmatian // 2024.2
	Epoxy     // 2025.1
	Flamingo  // 2025.2
	Gazpacho  // 2026.1
	Hibiscus  // 2026.2
)

type releaseInfo struct {
	name   string // lower-case code name
	series string // "2023.1" style, empty before 2023
	major  int    // nova package major version
	maxMV  Microversion
}

// The maximum compute microversions come from Nova's own
// _MAX_API_VERSION on each stable branch / eol tag and agree with the
// "(Maximum in …)" headings of rest_api_version_history.rst. Hibiscus is
// master at the time of writing and may still grow.
var releaseTable = map[Release]releaseInfo{
	Ussuri:    {"ussuri", "", 21, Microversion{2, 87}},
	Victoria:  {"victoria", "", 22, Microversion{2, 87}},
	Wallaby:   {"wallaby", "", 23, Microversion{2, 88}},
	Xena:      {"xena", "", 24, Microversion{2, 90}},
	Yoga:      {"yoga", "", 25, Microversion{2, 90}},
	Zed:       {"zed", "", 26, Microversion{2, 93}},
	Antelope:  {"antelope", "2023.1", 27, Microversion{2, 95}},
	Bobcat:    {"bobcat", "2023.2", 28, Microversion{2, 95}},
	Caracal:   {"caracal", "2024.1", 29, Microversion{2, 96}},
	Dalmatian: {"dalmatian", "2024.2", 30, Microversion{2, 96}},
	Epoxy:     {"epoxy", "2025.1", 31, Microversion{2, 100}},
	Flamingo:  {"flamingo", "2025.2", 32, Microversion{2, 100}},
	Gazpacho:  {"gazpacho", "2026.1", 33, Microversion{2, 103}},
	Hibiscus:  {"hibiscus", "2026.2", 34, Microversion{2, 104}},
}

// Releases lists every known release, oldest first.
func Releases() []Release {
	out := make([]Release, 0, len(releaseTable))
	for r := Ussuri; r <= Hibiscus; r++ {
		out = append(out, r)
	}
	return out
}

// String gives the name users type: the series number from 2023 on,
// the code name before.
func (r Release) String() string {
	info, ok := releaseTable[r]
	if !ok {
		return "unknown"
	}
	if info.series != "" {
		return info.series
	}
	return info.name
}

// Long gives series, code name and Nova version, e.g. "2024.2 Dalmatian (nova 30)".
func (r Release) Long() string {
	info, ok := releaseTable[r]
	if !ok {
		return "unknown"
	}
	name := strings.ToUpper(info.name[:1]) + info.name[1:]
	if r == Ussuri {
		name += " or older"
	}
	if info.series != "" {
		return fmt.Sprintf("%s %s (nova %d)", info.series, name, info.major)
	}
	return fmt.Sprintf("%s (nova %d)", name, info.major)
}

// MaxMicroversion is the highest compute API microversion of the release.
func (r Release) MaxMicroversion() Microversion { return releaseTable[r].maxMV }

// ParseRelease accepts a code name ("zed", "Dalmatian"), a series
// ("2024.2") or a Nova major version ("26", "nova-26").
func ParseRelease(s string) (Release, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	in = strings.TrimPrefix(strings.TrimPrefix(in, "nova-"), "nova ")
	if in == "" {
		return ReleaseUnknown, fmt.Errorf("empty Nova release")
	}
	for _, r := range Releases() {
		info := releaseTable[r]
		if in == info.name || (info.series != "" && in == info.series) ||
			in == info.series+" "+info.name || in == strconv.Itoa(info.major) {
			return r, nil
		}
	}
	if n, err := strconv.Atoi(strings.SplitN(in, ".", 2)[0]); err == nil && n > 0 && n < 21 && !strings.Contains(in, ".") {
		return Ussuri, nil // Nova 1..20: older than Ussuri, same vTPM rules (none)
	}
	return ReleaseUnknown, fmt.Errorf("unknown Nova release %q (want a name such as zed or gazpacho, a series such as 2024.2, or a Nova major version such as 26)", s)
}

// SupportsVTPM: emulated TPM arrived in Victoria.
func (r Release) SupportsVTPM() bool { return r >= Victoria }

// HasSecretSecurity: hw:tpm_secret_security and its traits arrived in 2026.1.
func (r Release) HasSecretSecurity() bool { return r >= Gazpacho }

// RequiresModelTrait: from 2024.2 the scheduler also requires
// COMPUTE_SECURITY_TPM_TIS or _CRB (scheduler/utils.py _translate_vtpm_request).
func (r Release) RequiresModelTrait() bool { return r >= Dalmatian }

// HostModeLiveMigration: 2026.1 lets host-mode vTPM guests live-migrate.
func (r Release) HostModeLiveMigration() bool { return r >= Gazpacho }

// RequiresOwnerNova: from 2026.2 every nova-compute reports OWNER_NOVA on
// its provider, and the scheduler requires it on every request once all
// nova-compute services are 2026.2 (service version 73; request_filter.py
// owner_nova_filter).
func (r Release) RequiresOwnerNova() bool { return r >= Hibiscus }

// ChecksSwtpmBinaries: nova-compute refuses to start when swtpm binaries
// are missing from its PATH (2026.2 trusts libvirt's domain capabilities
// alone).
func (r Release) ChecksSwtpmBinaries() bool { return r < Hibiscus }

// Detection is what the compute API's maximum microversion says about the
// release. Several releases can share a maximum; Candidates then holds all
// of them, oldest first.
type Detection struct {
	MaxMicroversion Microversion
	Candidates      []Release
	// PreRelease is true when the maximum matches no release exactly: a
	// development snapshot of the first candidate.
	PreRelease bool
}

// Ambiguous says whether the maximum leaves more than one release open.
func (d Detection) Ambiguous() bool { return len(d.Candidates) > 1 }

// Newest is the newest candidate, the assumption when nothing settles it.
func (d Detection) Newest() Release {
	if len(d.Candidates) == 0 {
		return ReleaseUnknown
	}
	return d.Candidates[len(d.Candidates)-1]
}

// DetectRelease maps a compute API maximum microversion to the releases
// whose maximum it is. A value between two releases' maxima is a
// development snapshot of the later one; a value above every known release
// is treated as the newest known one.
func DetectRelease(max Microversion) Detection {
	d := Detection{MaxMicroversion: max}
	if max.Less(releaseTable[Ussuri].maxMV) {
		d.Candidates = []Release{Ussuri}
		return d
	}
	var best Microversion
	for _, r := range Releases() {
		mv := releaseTable[r].maxMV
		if max.Less(mv) && (best == Microversion{}) {
			best = mv
		}
		if mv == max {
			d.Candidates = append(d.Candidates, r)
		}
	}
	if len(d.Candidates) > 0 {
		return d
	}
	d.PreRelease = true
	if best == (Microversion{}) {
		d.Candidates = []Release{Hibiscus}
		return d
	}
	for _, r := range Releases() {
		if releaseTable[r].maxMV == best {
			d.Candidates = append(d.Candidates, r)
		}
	}
	d.Candidates = d.Candidates[:1]
	return d
}

// Microversion is a compute API microversion such as 2.86.
type Microversion struct{ Major, Minor int }

// MinExtraSpecValidation is the microversion from which the flavor
// extra-spec API validates values (flavors_extraspecs.py).
var MinExtraSpecValidation = Microversion{2, 86}

// ParseMicroversion parses "2.86". "latest" is not a version here.
func ParseMicroversion(s string) (Microversion, error) {
	maj, min, ok := strings.Cut(strings.TrimSpace(s), ".")
	if !ok {
		return Microversion{}, fmt.Errorf("invalid microversion %q: want MAJOR.MINOR such as 2.86", s)
	}
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if err1 != nil || err2 != nil || a < 1 || b < 0 || len(maj) > 3 || len(min) > 4 {
		return Microversion{}, fmt.Errorf("invalid microversion %q: want MAJOR.MINOR such as 2.86", s)
	}
	return Microversion{a, b}, nil
}

func (m Microversion) String() string { return fmt.Sprintf("%d.%d", m.Major, m.Minor) }

// Less orders microversions numerically (2.9 < 2.10).
func (m Microversion) Less(o Microversion) bool {
	if m.Major != o.Major {
		return m.Major < o.Major
	}
	return m.Minor < o.Minor
}
