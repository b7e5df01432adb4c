package nova

import (
	"fmt"
	"strings"
)

// NotFoundError: no object of that name or ID.
type NotFoundError struct{ Kind, Ref string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no %s named or with ID %q", e.Kind, e.Ref)
}

// AmbiguousError: a name that several objects share.
type AmbiguousError struct {
	Kind, Ref string
	IDs       []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%d %ss are named %q; use an ID: %s", len(e.IDs), e.Kind, e.Ref, strings.Join(e.IDs, ", "))
}

// CloudImage is an image with its ID and every property as a string.
type CloudImage struct {
	ID         string
	Owner      string
	Visibility string
	Status     string
	Image
}

// CloudFlavor is a flavor with its ID and extra specs.
type CloudFlavor struct {
	ID       string
	IsPublic bool
	VCPUs    int
	RAM      int
	Disk     int
	// Ephemeral is the flavor's ephemeral disk (GB; OS-FLV-EXT-DATA).
	Ephemeral int
	Flavor
}
