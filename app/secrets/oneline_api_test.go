package secrets

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

// TestOneLineSaysTheRefusal: a refused request kept in a result (a
// project's "not auditable" reason, a failed write) reads as the error
// line does, with the server's own message, not gophercloud's "Expected
// HTTP response code … when accessing …".
func TestOneLineSaysTheRefusal(t *testing.T) {
	refused := gophercloud.ErrUnexpectedResponseCode{Method: "GET", URL: "http://127.0.0.1:9311/v1/secrets?limit=100", Expected: []int{200}, Actual: 403,
		Body: []byte(`{"code": 403, "title": "Forbidden", "description": "SecretACL\nrefused"}`)}
	got := oneLine(fmt.Errorf("listing secrets: %w", refused))
	if strings.Contains(got, "Expected HTTP") || !strings.HasPrefix(got, "listing secrets: GET ") || !strings.Contains(got, "403") ||
		!strings.Contains(got, "SecretACL refused") || strings.Contains(got, "\n") {
		t.Errorf("oneLine = %q", got)
	}
}
