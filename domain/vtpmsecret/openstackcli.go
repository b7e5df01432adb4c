package vtpmsecret

import (
	"fmt"

	"github.com/vtpmctl/vtpmctl/internal/quote"
)

// The openstack client's command lines an admin is told to run (the
// cleanup plan's deletes, the consumer's removal): the only flag
// spellings in this package, and they are the openstack client's (OSC,
// python-barbicanclient), never vtpmctl's.

// clientForce is the openstack client's flag that deletes a secret in
// spite of its consumers.
const clientForce = "--force"

// RemoveCommand is the openstack client's command that removes c.
func RemoveCommand(secretRef string, c Consumer) string {
	return fmt.Sprintf("openstack secret consumer delete --service-type-name %s --resource-type %s --resource-id %s %s", c.Service, c.ResourceType, c.ResourceID, secretRef)
}

// deleteCommand is the openstack client's delete of the secret at ref,
// with a token of its project (the cloud's name from clouds.yaml, when
// known). Every value is shell-quoted.
func deleteCommand(cloud, project, ref string) string {
	if cloud == "" {
		return fmt.Sprintf("openstack --os-project-id %s secret delete %s", quote.Shell(project), quote.Shell(ref))
	}
	return fmt.Sprintf("openstack --os-cloud %s --os-project-id %s secret delete %s", quote.Shell(cloud), quote.Shell(project), quote.Shell(ref))
}
