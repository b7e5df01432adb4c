package nova

// ReleaseInfo is a release as a document carries it, a value per part:
// {"name": "2023.1", "codename": "antelope", "nova": 27} (no name before
// 2023, whose releases had none). Text formats show Long().
type ReleaseInfo struct {
	Name     string `json:"name,omitempty"` // the series, from 2023.1 on
	Codename string `json:"codename"`       // lower case
	Nova     int    `json:"nova"`           // the nova package's major version
	r        Release
}

// Info is r's parts; nil when r is unknown (a document says null).
func (r Release) Info() *ReleaseInfo {
	info, ok := releaseTable[r]
	if !ok {
		return nil
	}
	return &ReleaseInfo{Name: info.series, Codename: info.name, Nova: info.major, r: r}
}

// String is the release as a table shows it: "2024.2 Dalmatian (nova 30)".
func (i ReleaseInfo) String() string { return i.r.Long() }

// ScriptText is the release as users type it (Release.String): "2024.2",
// or "zed" before 2023; what -f value and csv print, for $(…), and what a
// release flag takes back.
func (i ReleaseInfo) ScriptText() string { return i.r.String() }
