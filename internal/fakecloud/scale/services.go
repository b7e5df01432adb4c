package scale

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// Glance

func hImageVersions(w http.ResponseWriter, r *request) {
	fakecloud.Reply(w, 300, map[string]any{"versions": []any{
		map[string]any{"id": "v2.9", "status": "CURRENT", "links": link(r.c.URL+"/image/v2/", "self")}}})
}

func (c *Cloud) imageObj(k int) map[string]any {
	id := c.d.uuid(kImage, k)
	o := map[string]any{"id": id, "name": fmt.Sprintf("img-%03d", k), "status": "active", "visibility": "public", "protected": false,
		"os_hidden": false, "container_format": "bare", "disk_format": "qcow2", "min_disk": 0, "min_ram": 0, "size": 1 << 30,
		"virtual_size": 10 << 30, "checksum": fmt.Sprintf("%032x", k), "os_hash_algo": "sha512", "os_hash_value": fmt.Sprintf("%0128x", k),
		"owner": c.d.projectID(pAdmin), "tags": []string{}, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
		"self": "/v2/images/" + id, "file": "/v2/images/" + id + "/file", "schema": "/v2/schemas/image"}
	switch k {
	case 0:
		o["name"], o["hw_tpm_version"], o["hw_tpm_model"], o["os_distro"] = "win11-vtpm", "2.0", "tpm-crb", "windows"
		o["hw_firmware_type"], o["hw_machine_type"] = "uefi", "q35"
	case 1:
		o["name"] = "plain"
	}
	return o
}

// hImages: Glance's marker paging; a full page has a next link.
func hImages(w http.ResponseWriter, r *request) {
	c, q := r.c, r.URL.Query()
	var keep []int
	for k := 0; k < c.cfg.Images; k++ {
		if n := q.Get("name"); n != "" && "eq:"+c.imageObj(k)["name"].(string) != n && c.imageObj(k)["name"] != n {
			continue
		}
		keep = append(keep, k)
	}
	m := fakecloud.Markers{N: len(keep), ID: func(k int) string { return c.d.uuid(kImage, keep[k]) }, Index: func(mk string) (int, bool) {
		i, ok := c.d.parseUUID(mk, kImage)
		for k, v := range keep {
			if ok && v == i {
				return k, true
			}
		}
		return 0, false
	}}
	from, to, ok := m.Page(w, r.Request)
	if !ok {
		return
	}
	out := []any{}
	for _, k := range keep[from:to] {
		out = append(out, c.imageObj(k))
	}
	body := map[string]any{"images": out, "schema": "/v2/schemas/images", "first": "/v2/images?" + q.Encode()}
	if next := m.Next(r.Request, "/v2/images", from, to); next != "" {
		body["next"] = next
	}
	fakecloud.Reply(w, 200, body)
}

func hImage(w http.ResponseWriter, r *request) {
	k, ok := r.c.d.parseUUID(r.PathValue("id"), kImage)
	if !ok || k >= r.c.cfg.Images {
		http.Error(w, "404 Not Found\n\nNo image found with ID "+r.PathValue("id"), 404)
		return
	}
	fakecloud.Reply(w, 200, r.c.imageObj(k))
}

// Placement

func hPlacementVersions(w http.ResponseWriter, r *request) {
	fakecloud.Reply(w, 200, map[string]any{"versions": []any{map[string]any{"id": "v1.0", "status": "CURRENT", "max_version": "1.39",
		"min_version": "1.0", "links": link("", "self")}}})
}

// traitsOf host h: nine hosts in ten run swtpm (2.0 and 1.2, TIS and
// CRB); every other one also Secure Boot.
func (c *Cloud) traitsOf(h int) []string {
	t := []string{"COMPUTE_NET_ATTACH_INTERFACE", "HW_CPU_X86_AVX2"}
	if c.d.tpmHost(h) {
		t = append(t, "COMPUTE_SECURITY_TPM_1_2", "COMPUTE_SECURITY_TPM_2_0", "COMPUTE_SECURITY_TPM_TIS", "COMPUTE_SECURITY_TPM_CRB")
	}
	if h%2 == 0 {
		t = append(t, "COMPUTE_SECURITY_UEFI_SECURE_BOOT")
	}
	return t
}

// knownTrait: os-traits before 2026.1 has no secret security or
// OWNER_NOVA traits, and Placement answers 400 for them.
func (c *Cloud) knownTrait(t string) bool {
	top, _ := parseMV(c.cfg.Microversion)
	if top.less(mv{2, 103}) && (strings.HasPrefix(t, "COMPUTE_SECURITY_TPM_SECRET_SECURITY_") || t == "OWNER_NOVA") {
		return false
	}
	return strings.HasPrefix(t, "COMPUTE_") || strings.HasPrefix(t, "HW_") || t == "OWNER_NOVA"
}

func (c *Cloud) providerObj(h int) map[string]any {
	id := c.d.uuid(kHypervisor, h)
	p := "/resource_providers/" + id
	return map[string]any{"uuid": id, "name": hostName(h) + ".example.net", "generation": 7, "parent_provider_uuid": nil, "root_provider_uuid": id,
		"links": []map[string]string{{"href": p, "rel": "self"}, {"href": p + "/inventories", "rel": "inventories"},
			{"href": p + "/usages", "rel": "usages"}, {"href": p + "/aggregates", "rel": "aggregates"}, {"href": p + "/traits", "rel": "traits"},
			{"href": p + "/allocations", "rel": "allocations"}}}
}

func hProviders(w http.ResponseWriter, r *request) {
	c, q := r.c, r.URL.Query()
	var req []string
	if s := q.Get("required"); s != "" {
		req = strings.Split(s, ",")
	}
	for _, t := range req {
		if !c.knownTrait(t) {
			fakecloud.Reply(w, 400, map[string]any{"errors": []any{map[string]any{"status": 400, "title": "Bad Request", "detail": "No such trait(s): " + t + ".", "code": "placement.undefined_code"}}})
			return
		}
	}
	out := []any{}
	for h := 0; h < c.cfg.Hypervisors; h++ {
		o := c.providerObj(h)
		if n := q.Get("name"); n != "" && n != o["name"] || q.Get("uuid") != "" && q.Get("uuid") != o["uuid"] || !hasAll(c.traitsOf(h), req) {
			continue
		}
		out = append(out, o)
	}
	fakecloud.Reply(w, 200, map[string]any{"resource_providers": out})
}

func hasAll(have, want []string) bool {
	for _, x := range want {
		found := false
		for _, y := range have {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}

func hProviderTraits(w http.ResponseWriter, r *request) {
	h, ok := r.c.d.parseUUID(r.PathValue("id"), kHypervisor)
	if !ok || h >= r.c.cfg.Hypervisors {
		fakecloud.Reply(w, 404, map[string]any{"errors": []any{map[string]any{"status": 404, "title": "Not Found"}}})
		return
	}
	fakecloud.Reply(w, 200, map[string]any{"traits": r.c.traitsOf(h), "resource_provider_generation": 7})
}

// Barbican

func hBarbicanVersions(w http.ResponseWriter, r *request) {
	fakecloud.Reply(w, 300, map[string]any{"versions": map[string]any{"values": []any{map[string]any{"id": "v1", "status": "stable",
		"links": []map[string]string{{"rel": "self", "href": r.c.URL + "/key-manager/v1/"}}}}}})
}

func hBarbicanVersion(w http.ResponseWriter, r *request) {
	fakecloud.Reply(w, 200, map[string]any{"version": map[string]any{"id": "v1", "status": "stable",
		"links": []map[string]string{{"rel": "self", "href": r.c.URL + "/key-manager/v1/"}}}})
}

// secretOf entry e of tenant project p (>= 0 a guest's, < 0 other).
func (c *Cloud) secretObj(p int, e int32) map[string]any {
	d := c.d
	var id, name, creator string
	if e >= 0 {
		g := d.server(int(e))
		id, name, creator = d.uuid(kSecret, int(e)), "vTPM secret for instance "+g.id, g.user
		if int(e) < c.cfg.UpperCaseNames {
			name = "vTPM secret for instance " + strings.ToUpper(g.id)
		}
	} else {
		j := int(-e - 1)
		id, name, creator = d.uuid(kOtherSecret, p*100000+j), fmt.Sprintf("backup-key-%d", j), d.kid(kUser, p*d.perProject)
	}
	return map[string]any{"secret_ref": c.URL + "/key-manager/v1/secrets/" + id, "name": name, "creator_id": creator,
		"secret_type": "passphrase", "status": "ACTIVE", "algorithm": nil, "bit_length": nil, "mode": nil, "expiration": nil,
		"content_types": map[string]string{"default": "application/octet-stream"},
		"created":       "2026-01-01T00:00:00.000000", "updated": "2026-01-01T00:00:00.000000"}
}

// like is SQL LIKE: % any run, _ any one character.
func like(s, pat string) bool {
	if pat == "" {
		return s == ""
	}
	switch pat[0] {
	case '%':
		for i := 0; i <= len(s); i++ {
			if like(s[i:], pat[1:]) {
				return true
			}
		}
		return false
	case '_':
		return s != "" && like(s[1:], pat[1:])
	}
	return s != "" && s[0] == pat[0] && like(s[1:], pat[1:])
}

// hSecrets: the token's project's secrets, name LIKE filter, offset and
// limit (max 100). The next link is Barbican's: "old" keeps only limit
// and offset (the name filter is lost), "new" keeps the query.
func hSecrets(w http.ResponseWriter, r *request) {
	c, q := r.c, r.URL.Query()
	p := r.project - pTenant0
	var list []map[string]any
	if p >= 0 {
		for _, e := range c.d.projSecrets[p] {
			o := c.secretObj(p, e)
			if n := q.Get("name"); n != "" && !like(o["name"].(string), n) {
				continue
			}
			list = append(list, o)
		}
	}
	pg := fakecloud.Offsets{Old: c.cfg.Paging == "old"}
	from, to, limit := pg.Page(r.Request, len(list))
	body := map[string]any{"secrets": list[from:to], "total": len(list)}
	if body["secrets"] == nil {
		body["secrets"] = []any{}
	}
	next, previous := pg.Links(r.Request, c.URL+"/key-manager/v1/secrets", len(list), from, limit)
	if next != "" {
		body["next"] = next
	}
	if previous != "" {
		body["previous"] = previous
	}
	fakecloud.Reply(w, 200, body)
}

// secretOwner: the secret's tenant project (Keystone index) if it exists.
func (c *Cloud) secretOwner(id string) (int, bool) {
	if g, ok := c.d.parseUUID(id, kSecret); ok && g < c.cfg.Guests {
		return int(c.d.guestProject[g]) + pTenant0, true
	}
	if g, ok := c.d.parseUUID(id, kSecret); ok && g >= c.NumServers() && g < c.NumServers()+c.cfg.Orphans {
		return pTenant0, true // an orphan's, in the first tenant project
	}
	if k, ok := c.d.parseUUID(id, kOtherSecret); ok && k/100000 < c.cfg.Projects && k%100000 < c.cfg.OtherSecrets {
		return k/100000 + pTenant0, true
	}
	return 0, false
}

func hSecret(w http.ResponseWriter, r *request) {
	p, ok := r.c.secretOwner(r.PathValue("id"))
	if !ok || p != r.project {
		fakecloud.Reply(w, 404, map[string]any{"code": 404, "title": "Not Found", "description": "Secret not found."})
		return
	}
	fakecloud.Reply(w, 200, map[string]any{"secret_ref": r.c.URL + "/key-manager/v1/secrets/" + r.PathValue("id"), "status": "ACTIVE"})
}

// hSecretACL: one guest secret in ten has project access off.
func hSecretACL(w http.ResponseWriter, r *request) {
	p, ok := r.c.secretOwner(r.PathValue("id"))
	if !ok || p != r.project {
		fakecloud.Reply(w, 404, map[string]any{"code": 404, "title": "Not Found", "description": "Secret not found."})
		return
	}
	if g, ok := r.c.d.parseUUID(r.PathValue("id"), kSecret); ok && g%10 == 7 {
		fakecloud.Reply(w, 200, map[string]any{"read": map[string]any{"project-access": false, "users": []string{},
			"created": "2026-01-01T00:00:00", "updated": "2026-01-01T00:00:00"}})
		return
	}
	fakecloud.Reply(w, 200, map[string]any{"read": map[string]any{"project-access": true}})
}
