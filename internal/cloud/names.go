package cloud

import (
	"sort"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"
)

// CloudNames are the clouds of the clouds.yaml Connect would read (the
// first of SearchPaths), sorted; none when there is no such file or it
// does not parse. Shell completion offers them for --os-cloud.
func CloudNames() []string {
	if foundCloudsFile() == "" {
		return nil
	}
	clouds, err := clientconfig.LoadCloudsYAML()
	if err != nil {
		return nil
	}
	return sortedKeys(clouds)
}

// CloudRegions are the regions clouds.yaml names for the cloud (its
// region_name and regions), sorted and once each.
func CloudRegions(name string) []string {
	if name == "" || foundCloudsFile() == "" {
		return nil
	}
	clouds, err := clientconfig.LoadCloudsYAML()
	if err != nil {
		return nil
	}
	c, ok := clouds[name]
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range append([]clientconfig.Region{{Name: c.RegionName}}, c.Regions...) {
		if r.Name != "" && !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r.Name)
		}
	}
	sort.Strings(out)
	return out
}
