package fleet

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// UpgradeCloud is the upgrade check of what ReadCloud listed (pure but
// for the refusal of a target older than the cloud).
func UpgradeCloud(c Cloud, to nova.Release) (UpgradeResult, error) {
	from, err := UpgradeStart(c.Release, to)
	if err != nil {
		return UpgradeResult{}, err
	}
	u := UpgradeImpact(from, to, c.Hosts, c.Inventory.Guests)
	u.From = c.Release.Label() // "2025.1 or 2025.2" while the cloud leaves it open
	u.Resolved = c.Release
	return u, nil
}

// OlderTargetError: the upgrade's target is older than the release the
// cloud runs. The caller names the field it read To from (the CLI its
// flag).
type OlderTargetError struct{ To, Cloud nova.Release }

func (e *OlderTargetError) Error() string {
	return fmt.Sprintf("%s is older than the cloud's %s", e.To, e.Cloud)
}

// UpgradeStart is the one answer to where an upgrade to `to` starts:
// the resolved release, or `to` itself when it is one of the releases
// the cloud's evidence leaves open (nova.ResolvedRelease.UpgradeFrom).
// The upgrade check and the report's upgrade section both ask it.
func UpgradeStart(res nova.ResolvedRelease, to nova.Release) (nova.Release, error) {
	from, ok := res.UpgradeFrom(to)
	if !ok {
		return from, &OlderTargetError{To: to, Cloud: from}
	}
	return from, nil
}
