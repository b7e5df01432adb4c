package nova

import "strings"

// Glance's image schema decides which keys are properties: a rule both
// a plan (read before any cloud) and the image writes (checked before a
// request) hold, so it lives here, not in the API client.

// coreAttributes are the top-level attributes of Glance's image schema
// (glance/api/v2/images.py, get_base_properties, and the multi-store
// "stores"): a JSON patch on one of them changes the image itself
// (visibility publishes it, owner gives it away, tags/locations rewrite
// it), not a property. Nothing a user hands us may write them.
var coreAttributes = map[string]bool{
	"id": true, "name": true, "status": true, "visibility": true, "protected": true,
	"os_hidden": true, "checksum": true, "os_hash_algo": true, "os_hash_value": true,
	"owner": true, "size": true, "virtual_size": true, "container_format": true,
	"disk_format": true, "created_at": true, "updated_at": true, "tags": true,
	"direct_url": true, "min_ram": true, "min_disk": true, "self": true, "file": true,
	"schema": true, "locations": true, "stores": true,
}

// clientFields are keys the API client (gophercloud) decodes as fields of the image, never
// into its properties: written, they would show "would be added" on every
// diff (and "metadata", a string, breaks decoding the image).
var clientFields = map[string]bool{
	"metadata":                       true,
	"openstack-image-import-methods": true, "openstack-image-store-ids": true,
}

// ReservedImageProperty says why key cannot be written as an image
// property ("" when it can): a core attribute of the image schema,
// Glance's own os_glance_ namespace (Glance refuses it), or an empty key
// (the patch path "/" would name the whole image).
func ReservedImageProperty(key string) string {
	switch {
	case key == "":
		return "an empty key is not a property"
	case coreAttributes[key]:
		return "a Glance core attribute of the image, not a property"
	case clientFields[key]:
		return "read as a field of the image, never as a property"
	case strings.HasPrefix(key, "os_glance"):
		return "in Glance's reserved os_glance namespace"
	}
	return ""
}
