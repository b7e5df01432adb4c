package hostcheck

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"sort"
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
		// An unencoded ',' or '/' in a password: "svcuser:1234" must not
		// become a host, its hash part of the answer.
		{"unencoded , in a password", "rabbit://svcuser:1234,x@rabbit1/", "", errCellMixed},
		{"unencoded , in the second host's password", "rabbit://svcuser:pw@rabbit1,svcuser:1234,x@rabbit2/", "", errCellMixed},
		{"unencoded / in a password", "rabbit://svcuser:1234/x@rabbit1/", "", errCellMixed},
		{"unencoded ? in a password", "rabbit://svcuser:1234?x@rabbit1/", "", errCellMixed},
		{"credentials on one host only", "rabbit://svcuser:pw@rabbit1,rabbit2/", "", errCellMixed},
		{"no credentials, several hosts", "rabbit://rabbit1,rabbit2/", "rabbit\nrabbit1:5672,rabbit2:5672\n/", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := cellKey(c.url)
			if !errors.Is(err, c.err) || got != c.want {
				t.Fatalf("cellKey(%q) = %q, %v; want %q, %v", c.url, got, err, c.want, c.err)
			}
			for _, secret := range []string{"s3cret", "pw", "p%40ss", "p@ss", "svcuser", "1234"} {
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

// TestCellHosts: one hash per broker host:port with the virtual host;
// spellings of one node hash alike, another vhost hashes apart.
func TestCellHosts(t *testing.T) {
	h := func(hp, vhost string) string { return shortHash("host\n" + hp + "\n" + vhost) }
	sorted := func(s ...string) []string { sort.Strings(s); return s }
	cases := []struct {
		name, url string
		want      []string
		err       error
	}{
		{"one host, default port and vhost", "rabbit://svcuser:pw@RABBIT1", []string{h("rabbit1:5672", "/")}, nil},
		{"three nodes, any order", "rabbit://u:pw@ctl3,u:pw@ctl1:5672,u:pw@ctl2/nova",
			sorted(h("ctl1:5672", "nova"), h("ctl2:5672", "nova"), h("ctl3:5672", "nova")), nil},
		{"a node named twice", "rabbit://u:pw@ctl1,u:pw@ctl1:5672/", []string{h("ctl1:5672", "/")}, nil},
		{"unencoded , in a password", "rabbit://svcuser:1234,x@rabbit1/", nil, errCellMixed},
		{"garbage", "rabbit1:5672", nil, errCellScheme},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := CellHosts(c.url)
			if !errors.Is(err, c.err) || !slices.Equal(got, c.want) {
				t.Fatalf("CellHosts(%q) = %q, %v; want %q, %v", c.url, got, err, c.want, c.err)
			}
		})
	}
}

// TestSameCell: hosts of one cell may name its RabbitMQ cluster
// differently; another cell is another vhost or no common broker node.
// Reports from before cell_hosts compare their fingerprints.
func TestSameCell(t *testing.T) {
	info := func(url string) HostInfo {
		fp, err := CellFingerprint(url)
		hosts, err2 := CellHosts(url)
		if err != nil || err2 != nil {
			t.Fatalf("%q: %v, %v", url, err, err2)
		}
		return HostInfo{Cell: fp, CellHosts: hosts}
	}
	old := func(h HostInfo) HostInfo { h.CellHosts = nil; return h } // a report from before cell_hosts
	all := info("rabbit://nova:a@ctl1:5672,nova:a@ctl2:5672,nova:a@ctl3:5672/")
	cases := []struct {
		name        string
		a, b        HostInfo
		same, known bool
	}{
		{"the same URL", all, info("rabbit://nova:b@ctl1:5672,nova:b@ctl2:5672,nova:b@ctl3:5672/"), true, true},
		{"a subset of the nodes", all, info("rabbit://nova:b@ctl2/"), true, true},
		{"overlapping subsets", info("rabbit://n:a@ctl1,n:a@ctl2/"), info("rabbit://n:a@ctl2,n:a@ctl3/"), true, true},
		{"disjoint nodes", all, info("rabbit://nova:a@ctl9/"), false, true},
		{"the same nodes, another vhost", all, info("rabbit://nova:a@ctl1,nova:a@ctl2,nova:a@ctl3/cell2"), false, true},
		{"old reports, equal", old(all), old(info("rabbit://x:y@ctl3,x:y@ctl2,x:y@ctl1/")), true, true},
		{"old reports, a subset: differ", old(all), old(info("rabbit://nova:b@ctl2/")), false, true},
		{"an old and a new report", old(all), info("rabbit://nova:b@ctl2/"), false, true},
		{"one unknown", all, HostInfo{}, false, false},
		{"only hashes against only a fingerprint", HostInfo{CellHosts: all.CellHosts}, old(all), false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, pair := range [][2]HostInfo{{c.a, c.b}, {c.b, c.a}} {
				if same, known := pair[0].SameCell(&pair[1]); same != c.same || known != c.known {
					t.Errorf("SameCell = %v, %v; want %v, %v", same, known, c.same, c.known)
				}
			}
		})
	}
}

// TestCellOf: from nova.conf's [DEFAULT] transport_url; absent or
// malformed is unknown ("").
func TestCellOf(t *testing.T) {
	const url = "rabbit://svcuser:pw@rabbit1:5672/"
	want, _ := CellFingerprint(url)
	wantHosts, _ := CellHosts(url)
	for _, c := range []struct {
		conf, want string
		hosts      []string
	}{
		{"[DEFAULT]\ntransport_url = " + url + "\n", want, wantHosts},
		{"[DEFAULT]\nhost = cmp1\n", "", nil},
		{"[DEFAULT]\ntransport_url =\n", "", nil},
		{"[DEFAULT]\ntransport_url = rabbit://svcuser:pw@rabbit1:x/\n", "", nil},
		{"[DEFAULT]\ntransport_url = rabbit://svcuser:12,34@rabbit1/\n", "", nil},
		{"[oslo_messaging_rabbit]\ntransport_url = " + url + "\n", "", nil}, // not nova-compute's option
	} {
		nc := &NovaConf{values: map[string]map[string]confValue{}}
		if err := nc.parse("nova.conf", []byte(c.conf)); err != nil {
			t.Fatal(err)
		}
		if got, hosts := cellOf(nc); got != c.want || !slices.Equal(hosts, c.hosts) {
			t.Errorf("%q: got %q %q, want %q %q", c.conf, got, hosts, c.want, c.hosts)
		}
	}
	if got, hosts := cellOf(nil); got != "" || hosts != nil {
		t.Errorf("no nova.conf: got %q %q", got, hosts)
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
	f.Add("rabbit://h1/", "1234,x")
	f.Add("rabbit://h1:5672,h2/v", "12/34")
	fixed := map[string]bool{}
	for _, e := range []error{errCellScheme, errCellHost, errCellPort, errCellVHost, errCellMixed} {
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
		a, errA := cellAnswer(with)
		b, errB := cellAnswer(without)
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("the password changed the answer: %q -> %q, %v; %q -> %q, %v", with, a, errA, without, b, errB)
		}
		// Unencoded, as a hand-written nova.conf may carry it: an error
		// or the answer without it. A password with an '@' is out: oslo
		// itself cannot tell "u:p@q,r@h" from two hosts.
		if strings.Contains(pw, "@") {
			return
		}
		raw = "rabbit://svcuser:" + pw + "@" + rest
		if a, err := cellAnswer(raw); err == nil && (errB != nil || a != b) {
			t.Fatalf("an unencoded password changed the answer: %q -> %q; %q -> %q, %v", raw, a, without, b, errB)
		}
	})
}

// cellAnswer: all a report takes from a transport URL, as one string.
func cellAnswer(raw string) (string, error) {
	fp, err := CellFingerprint(raw)
	if err != nil {
		return "", err
	}
	hosts, err := CellHosts(raw)
	return fp + " " + strings.Join(hosts, ","), err
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
			if hosts, _ := CellHosts(url); c.want != "" && !slices.Equal(r.Facts.CellHosts, hosts) || c.want == "" && r.Facts.CellHosts != nil {
				t.Errorf("cell_hosts %q", r.Facts.CellHosts)
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
