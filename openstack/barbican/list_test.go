package barbican

import (
	"encoding/json"
	"testing"
)

// TestNextOffset: a next link's offset decides the next page; one that
// does not move forward is an error, not an end of the list.
func TestNextOffset(t *testing.T) {
	for _, c := range []struct {
		next        string
		offset, got int
		want        int
		err         bool
	}{
		{"http://kms/v1/secrets?limit=50&offset=50", 0, 50, 50, false},
		{"http://kms/v1/secrets?limit=100&offset=200&name=x", 100, 100, 200, false},
		{"http://kms/v1/secrets?limit=100", 100, 30, 130, false}, // no offset: past the page read
		{"http://kms/v1/secrets?offset=0", 100, 100, 0, true},
		{"http://kms/v1/secrets?offset=100", 100, 0, 0, true},
		{"%zz", 0, 0, 0, true},
	} {
		n, err := nextOffset(c.next, c.offset, c.got)
		if (err != nil) != c.err || !c.err && n != c.want {
			t.Errorf("%q at %d (+%d): %d, %v; want %d", c.next, c.offset, c.got, n, err, c.want)
		}
	}
}

// TestListedSecretID: the secret's ID is the UUID of its own URL; a ref
// of any other shape is no secret's.
func TestListedSecretID(t *testing.T) {
	const id = "6f1c52f4-7d39-4c51-9a4f-3a8f0f1a6d11"
	for _, c := range []struct {
		ref string
		ok  bool
	}{
		{"http://kms/v1/secrets/" + id, true},
		{"http://kms/v1/secrets/" + id + "/", true},
		{"http://kms/v1/secrets/" + id + "/payload", false},
		{"http://kms/v1/containers/" + id, false},
		{"http://kms/v1/secrets/not-a-uuid", false},
	} {
		var l ListedSecret
		l.SecretRef = c.ref
		if got, ok := l.ID(); ok != c.ok || ok && got != id {
			t.Errorf("%s: %q, %v", c.ref, got, ok)
		}
	}
}

// The shortcut past the consumers' decoding may skip only what
// encoding/json would not have matched: any case, escapes and folding
// characters still decode.
func TestListedSecretConsumersAsEncodingJSONMatches(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		want      int
	}{
		{"absent", "", 0},
		{"plain", `"consumers"`, 1},
		{"upper", `"CONSUMERS"`, 1},
		{"escaped", `"consum\u0065rs"`, 1},
		{"long s folds", `"conſumers"`, 1},
		{"other key", `"consumer"`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := `{"secret_ref": "https://kms/v1/secrets/5f1e4c3a-1b2c-4d5e-8f90-123456789abc", "name": "vTPM x"`
			if tc.key != "" {
				b += `, ` + tc.key + `: [{"service": "nova", "resource_type": "instance", "resource_id": "i"}]`
			}
			var l ListedSecret
			if err := json.Unmarshal([]byte(b+`}`), &l); err != nil {
				t.Fatal(err)
			}
			if len(l.Consumers) != tc.want || l.Name != "vTPM x" {
				t.Fatalf("consumers %v name %q, want %d consumer(s)", l.Consumers, l.Name, tc.want)
			}
		})
	}
}
