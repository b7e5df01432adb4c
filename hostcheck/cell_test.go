package hostcheck

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestCellKey: oslo.messaging's transport URLs, normalized without their
// credentials; equivalent spellings of one cell give one key.
func TestCellKey(t *testing.T) {
	cases := []struct {
		name, url, want string
		err             error
	}{
		{"single host", "rabbit://svcuser:s3cret@rabbit1:5672/", "rabbit\nrabbit1:5672\n/", nil},
		{"multi-host, sorted, each with its credentials", "rabbit://svcuser:pw@ctl2:5672,svcuser:pw@CTL1:5672,svcuser:pw@ctl3:5672/nova",
			"rabbit\nctl1:5672,ctl2:5672,ctl3:5672\nnova", nil},
		{"IPv6", "rabbit://svcuser:pw@[::1]:5672,svcuser:pw@[FD00:0::2]:5673/", "rabbit\n[::1]:5672,[fd00::2]:5673\n/", nil},
		{"no vhost is the default /", "rabbit://svcuser:pw@rabbit1:5672", "rabbit\nrabbit1:5672\n/", nil},
		{"an explicit / vhost", "rabbit://svcuser:pw@rabbit1:5672//", "rabbit\nrabbit1:5672\n/", nil},
		{"an encoded / vhost", "rabbit://svcuser:pw@rabbit1:5672/%2F", "rabbit\nrabbit1:5672\n/", nil},
		{"a cell's vhost, query dropped", "rabbit://svcuser:pw@rabbit1:5672/cell1?ssl=1", "rabbit\nrabbit1:5672\ncell1", nil},
		{"rabbit's default port made explicit", "rabbit://svcuser:pw@rabbit1/cell1", "rabbit\nrabbit1:5672\ncell1", nil},
		{"percent-encoded password with @ and ,", "rabbit://svcuser:p%40ss%2Cw0rd@rabbit1:5672,svcuser:p%40ss%2Cw0rd@rabbit2:5672/", "rabbit\nrabbit1:5672,rabbit2:5672\n/", nil},
		{"no credentials", "rabbit://rabbit1:5672/", "rabbit\nrabbit1:5672\n/", nil},
		{"garbage", "not a url", "", errCellScheme},
		{"no scheme", "://svcuser:pw@rabbit1/", "", errCellScheme},
		{"no host", "rabbit:///", "", errCellHost},
		{"empty host after credentials", "rabbit://svcuser:pw@:5672/", "", errCellHost},
		{"unclosed IPv6", "rabbit://svcuser:pw@[::1:5672/", "", errCellHost},
		{"port not a number", "rabbit://svcuser:pw@rabbit1:amqp/", "", errCellPort},
		{"port out of range", "rabbit://svcuser:pw@rabbit1:70000/", "", errCellPort},
		{"bad escape in vhost", "rabbit://svcuser:pw@rabbit1/%zz", "", errCellVHost},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := cellKey(c.url)
			if !errors.Is(err, c.err) || got != c.want {
				t.Fatalf("cellKey(%q) = %q, %v; want %q, %v", c.url, got, err, c.want, c.err)
			}
			for _, secret := range []string{"s3cret", "pw", "p%40ss", "p@ss", "svcuser"} {
				if strings.Contains(got, secret) {
					t.Errorf("key %q carries the credential %q", got, secret)
				}
			}
		})
	}
}

// TestCellFingerprint: the key's hash, and a different cell a different
// fingerprint.
func TestCellFingerprint(t *testing.T) {
	fp, err := CellFingerprint("rabbit://svcuser:pw@rabbit1:5672/")
	sum := sha256.Sum256([]byte("rabbit\nrabbit1:5672\n/"))
	if want := "mq-" + hex.EncodeToString(sum[:])[:12]; err != nil || fp != want {
		t.Fatalf("got %q, %v; want %q", fp, err, want)
	}
	other, _ := CellFingerprint("rabbit://svcuser:pw@rabbit1:5672/cell2")
	if other == fp {
		t.Fatalf("cell2's vhost gave the default vhost's fingerprint %s", fp)
	}
}

// TestCellOf: from nova.conf's [DEFAULT] transport_url; absent or
// malformed is unknown ("").
func TestCellOf(t *testing.T) {
	want, _ := CellFingerprint("rabbit://svcuser:pw@rabbit1:5672/")
	for _, c := range []struct{ conf, want string }{
		{"[DEFAULT]\ntransport_url = rabbit://svcuser:pw@rabbit1:5672/\n", want},
		{"[DEFAULT]\nhost = cmp1\n", ""},
		{"[DEFAULT]\ntransport_url =\n", ""},
		{"[DEFAULT]\ntransport_url = rabbit://svcuser:pw@rabbit1:x/\n", ""},
		{"[oslo_messaging_rabbit]\ntransport_url = rabbit://svcuser:pw@rabbit1:5672/\n", ""}, // not nova-compute's option
	} {
		nc := &NovaConf{values: map[string]map[string]confValue{}}
		if err := nc.parse("nova.conf", []byte(c.conf)); err != nil {
			t.Fatal(err)
		}
		if got := cellOf(nc); got != c.want {
			t.Errorf("%q: got %q, want %q", c.conf, got, c.want)
		}
	}
	if got := cellOf(nil); got != "" {
		t.Errorf("no nova.conf: got %q", got)
	}
}

var fingerprintRE = regexp.MustCompile(`^mq-[0-9a-f]{12}$`)

// FuzzCellFingerprint: never a panic; a fingerprint or one of the fixed
// errors, so nothing of the URL can come back; and the credentials do
// not change the answer, so the password cannot be in it.
func FuzzCellFingerprint(f *testing.F) {
	f.Add("rabbit://svcuser:pw@h1:5672,svcuser:pw@h2:5672/vhost", "s3cret")
	f.Add("rabbit://u:p@[::1]:5672/", "p@ss,w0rd")
	f.Add("rabbit://h1", "")
	f.Add("garbage", "x")
	fixed := map[string]bool{}
	for _, e := range []error{errCellScheme, errCellHost, errCellPort, errCellVHost} {
		fixed[e.Error()] = true
	}
	f.Fuzz(func(t *testing.T, raw, pw string) {
		fp, err := CellFingerprint(raw)
		switch {
		case err != nil && (fp != "" || !fixed[err.Error()]):
			t.Fatalf("%q: %q, %v: an error must be a fixed text and no fingerprint", raw, fp, err)
		case err == nil && !fingerprintRE.MatchString(fp):
			t.Fatalf("%q: %q is not a fingerprint", raw, fp)
		}
		// The same URL with pw as the first host's password, encoded as
		// oslo requires, and with another password: the same answer, so
		// nothing of pw can be in it.
		rest := raw
		if _, r, ok := strings.Cut(raw, "://"); ok {
			rest = r
		}
		with := "rabbit://svcuser:" + url.QueryEscape(pw) + "@" + rest
		without := "rabbit://svcuser:x@" + rest
		a, errA := CellFingerprint(with)
		b, errB := CellFingerprint(without)
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("the password changed the answer: %q -> %q, %v; %q -> %q, %v", with, a, errA, without, b, errB)
		}
	})
}

// TestReportCell: host check's report carries the cell fingerprint of the
// transport_url in nova.conf, never the URL or its password, and none
// without a transport_url.
func TestReportCell(t *testing.T) {
	const url = "rabbit://nova:Pa%40ss%2Cw0rd@ctl1:5672,nova:Pa%40ss%2Cw0rd@ctl2:5672/"
	want, err := CellFingerprint(url)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, conf, want string
	}{
		{"transport_url", strings.Replace(novaConfOK, "[DEFAULT]\n", "[DEFAULT]\ntransport_url = "+url+"\n", 1), want},
		{"none", novaConfOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			tr.write("/etc/nova/nova.conf", c.conf)
			r := tr.run()
			if r.Facts.Cell != c.want {
				t.Errorf("cell %q, want %q", r.Facts.Cell, c.want)
			}
			raw, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			for _, leak := range []string{"Pa%40ss", "Pa@ss", "ctl1"} {
				if strings.Contains(string(raw), leak) {
					t.Errorf("the report contains %q", leak)
				}
			}
		})
	}
}
