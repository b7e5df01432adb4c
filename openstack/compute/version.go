package compute

import (
	"context"
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// DetectCloudRelease reads the compute API's maximum microversion from
// its version document. gophercloud's discovery turns a failed request
// into "microversions not supported", hiding a 5xx or a failed
// re-authentication, so the document is read here and every failure named.
func DetectCloudRelease(ctx context.Context, c *gophercloud.ServiceClient) (nova.Detection, error) {
	var doc struct {
		Version *struct {
			Version string `json:"version"`
		} `json:"version"`
	}
	u := versionDocURL(c.Endpoint)
	_, err := c.Get(ctx, u, &doc, &gophercloud.RequestOpts{OkCodes: []int{200, 300}})
	if err != nil {
		return nova.Detection{}, fmt.Errorf("reading the compute API version document %s: %w", u, err)
	}
	if doc.Version == nil || doc.Version.Version == "" {
		return nova.Detection{}, fmt.Errorf("the compute API version document at %s names no maximum microversion (is the compute endpoint versioned, e.g. …/v2.1?)", c.Endpoint)
	}
	mv, err := nova.ParseMicroversion(doc.Version.Version)
	if err != nil {
		return nova.Detection{}, fmt.Errorf("the compute API version document at %s: %w", c.Endpoint, err)
	}
	return nova.DetectRelease(mv), nil
}

// versionDocURL drops a trailing project ID (…/v2.1/PROJECT, an old
// catalog style) so the version document is asked for.
func versionDocURL(endpoint string) string {
	e := strings.TrimRight(endpoint, "/")
	i := strings.LastIndex(e, "/")
	if i >= 0 && !strings.HasPrefix(e[i+1:], "v2") {
		e = e[:i]
	}
	return e + "/"
}
