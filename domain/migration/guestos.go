package migration

import (
	"regexp"
	"strings"
)

// GuestOS is what the target needs to know about the guest.
type GuestOS struct {
	Name    string // e.g. "Windows Server 2022"
	Windows bool
	Win11   bool // needs TPM 2.0, UEFI and Secure Boot
	Linux   bool
	Source  string // which field told
}

// guestIDs maps vSphere guest IDs to the OS. VMware names newer Windows
// after the previous version plus "Next": windows2019srvNext_64Guest is
// Server 2022 and windows2022srvNext_64Guest is Server 2025; windows9 is
// Windows 10 (govmomi vim25/types enum comments).
var guestIDs = map[string]string{
	"windows9guest":              "Windows 10",
	"windows9_64guest":           "Windows 10",
	"windows11_64guest":          "Windows 11",
	"windows12_64guest":          "Windows (next)",
	"windows9server64guest":      "Windows Server 2016",
	"windows2019srv_64guest":     "Windows Server 2019",
	"windows2019srvnext_64guest": "Windows Server 2022",
	"windows2022srvnext_64guest": "Windows Server 2025",
	"windows8server64guest":      "Windows Server 2012",
	"windows7server64guest":      "Windows Server 2008 R2",
}

var (
	winName   = regexp.MustCompile(`(?i)microsoft windows (server )?(\d{2,4}|10|11|12)( r2)?`)
	buildNum  = regexp.MustCompile(`buildNumber='(\d+)'`)
	linuxHint = regexp.MustCompile(`(?i)linux|rhel|red hat|ubuntu|debian|centos|suse|sles|rocky|alma|oracle`)
)

// IdentifyOS prefers what VMware Tools saw, then the detailed guest data,
// then the configured guest ID and name: guest IDs go stale after in-place
// upgrades.
func IdentifyOS(tools, detailed, guestID, config string) GuestOS {
	if os, ok := fromName(tools); ok {
		os.Source = "VMware Tools"
		return os
	}
	if m := buildNum.FindStringSubmatch(detailed); m != nil {
		switch m[1] {
		case "20348":
			return finish(GuestOS{Name: "Windows Server 2022", Source: "guest detailed data (build 20348)"})
		}
	}
	if n, ok := guestIDs[strings.ToLower(guestID)]; ok {
		return finish(GuestOS{Name: n, Source: "guest ID " + guestID})
	}
	if os, ok := fromName(config); ok {
		os.Source = "configured OS name"
		return os
	}
	if strings.HasPrefix(strings.ToLower(guestID), "windows") {
		return finish(GuestOS{Name: "Windows (unknown version)", Source: "guest ID " + guestID})
	}
	src := guestID + " " + config + " " + tools
	if linuxHint.MatchString(src) {
		return GuestOS{Name: strings.TrimSpace(firstNonEmpty(tools, config, guestID)), Linux: true, Source: "guest ID or name"}
	}
	return GuestOS{Name: firstNonEmpty(tools, config, guestID, "unknown"), Source: "unrecognised"}
}

func fromName(s string) (GuestOS, bool) {
	m := winName.FindStringSubmatch(s)
	if m == nil {
		if linuxHint.MatchString(s) {
			return GuestOS{Name: strings.TrimSpace(s), Linux: true}, true
		}
		return GuestOS{}, false
	}
	name := "Windows " + m[2]
	if m[1] != "" {
		name = "Windows Server " + m[2]
	}
	if m[3] != "" {
		name += " R2"
	}
	return finish(GuestOS{Name: name}), true
}

func finish(o GuestOS) GuestOS {
	o.Windows = true
	o.Win11 = o.Name == "Windows 11"
	return o
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return strings.TrimSpace(x)
		}
	}
	return ""
}
