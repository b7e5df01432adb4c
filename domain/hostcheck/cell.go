package hostcheck

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Nova moves a guest only within its cell, and the computes of one cell
// share its message queue: nova-compute has no API database and reaches
// the cell's conductor over [DEFAULT] transport_url. Its fingerprint tells
// two hosts' cells apart without the URL, which carries the RabbitMQ
// password: neither the URL nor any part of its credentials leaves here.

// The parser's errors are fixed texts: a message quoting the URL would
// quote the password.
var (
	errCellScheme = errors.New("transport_url: no driver scheme (like rabbit://)")
	errCellHost   = errors.New("transport_url: a host is empty or malformed")
	errCellPort   = errors.New("transport_url: a port is not a number from 1 to 65535")
	errCellVHost  = errors.New("transport_url: the virtual host is not percent-encoded correctly")
)

// errCellMixed: some hosts carry credentials and others none. oslo reads
// a ',' as the end of a host, so an unencoded ',' in a password
// (user:12,34@host) would make "user:12" a host and put part of the
// password into a hash; a credentials-less multi-host URL is vanishingly
// rare, and an unknown cell only keeps destinations (with a note).
var errCellMixed = errors.New("transport_url: some hosts carry credentials and others not (a ',', '/', '?' or '#' in a password must be percent-encoded)")

// CellFingerprint is "mq-" and the first 12 hex digits of SHA-256 over the
// transport URL normalized without its credentials: the scheme, each
// host:port sorted, and the virtual host. It parses oslo.messaging's form
// (TransportURL.parse), which net/url refuses:
// driver://[user:pass@]host:port[,[user:pass@]host:port]/virtual_host?query.
func CellFingerprint(transportURL string) (string, error) {
	key, err := cellKey(transportURL)
	if err != nil {
		return "", err
	}
	return "mq-" + shortHash(key), nil
}

// CellHosts is one short hash (12 hex digits of SHA-256) per broker
// host:port of the transport URL, sorted, each over the normalized
// host:port and the virtual host: hosts of one cell may name its RabbitMQ
// cluster differently (a subset of its nodes, in another order), and one
// broker node shared by two URLs with the same virtual host is one cell,
// while the same node under another virtual host hashes apart. No
// credentials and no scheme are hashed (the port carries the driver's
// default already).
func CellHosts(transportURL string) ([]string, error) {
	u, err := parseCellURL(transportURL)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(u.hosts))
	for _, hp := range u.hosts {
		h := shortHash("host\n" + hp + "\n" + u.vhost)
		if len(out) == 0 || out[len(out)-1] != h { // a node named twice
			out = append(out, h)
		}
	}
	sort.Strings(out)
	return out, nil
}

// SameCell: whether h and o are hosts of one cell, known false when
// either's cell is unknown. With both reports' cell_hosts: another cell
// only when no broker host (with its virtual host) is common; else, for
// a report from before cell_hosts, equal cell fingerprints.
func (h *HostInfo) SameCell(o *HostInfo) (same, known bool) {
	if len(h.CellHosts) > 0 && len(o.CellHosts) > 0 {
		return overlap(h.CellHosts, o.CellHosts), true
	}
	if h.Cell != "" && o.Cell != "" {
		return h.Cell == o.Cell, true
	}
	return false, false
}

// CellKnown: the report names its cell in some form.
func (h *HostInfo) CellKnown() bool { return h.Cell != "" || len(h.CellHosts) > 0 }

// overlap: a and b, both sorted, share an element.
func overlap(a, b []string) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}

// cellURL is a transport URL without its credentials: the lower-case
// scheme, the normalized host:port list sorted, the decoded virtual host.
type cellURL struct {
	scheme string
	hosts  []string
	vhost  string
}

// cellKey is the normalized URL the fingerprint hashes: scheme, sorted
// host:port list and virtual host, one per line; no credentials.
func cellKey(transportURL string) (string, error) {
	u, err := parseCellURL(transportURL)
	if err != nil {
		return "", err
	}
	return u.scheme + "\n" + strings.Join(u.hosts, ",") + "\n" + u.vhost, nil
}

func parseCellURL(transportURL string) (cellURL, error) {
	s := strings.TrimSpace(transportURL)
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !validScheme(scheme) {
		return cellURL{}, errCellScheme
	}
	scheme = strings.ToLower(scheme)
	// urlparse's netloc ends at the first '/', '?' or '#'; a password
	// holding one of them must be percent-encoded for oslo too.
	netloc, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		netloc, path = rest[:i], rest[i:]
	}
	entries := strings.Split(netloc, ",")
	withCreds, without := 0, 0
	for _, h := range entries {
		switch {
		case h == "": // oslo skips empty entries
		case strings.Contains(h, "@"):
			withCreds++
		default:
			without++
		}
	}
	// Mixed: an unencoded ',' split a password. No '@' before the path
	// but one after it: an unencoded '/', '?' or '#' ended the netloc
	// inside the password ("user:12/34@host"), so "user:12" looks like
	// the host.
	if withCreds > 0 && without > 0 || withCreds == 0 && strings.Contains(path, "@") {
		return cellURL{}, errCellMixed
	}
	var hosts []string
	for _, h := range entries {
		if h == "" {
			continue
		}
		// oslo splits the credentials off at the first '@'.
		if _, after, found := strings.Cut(h, "@"); found {
			h = after
		}
		hp, err := hostPort(scheme, h)
		if err != nil {
			return cellURL{}, err
		}
		hosts = append(hosts, hp)
	}
	if len(hosts) == 0 {
		return cellURL{}, errCellHost
	}
	sort.Strings(hosts)
	vhost, err := virtualHost(path)
	if err != nil {
		return cellURL{}, err
	}
	return cellURL{scheme, hosts, vhost}, nil
}

// cellOf: the fingerprint and host hashes of this host's [DEFAULT]
// transport_url, none (unknown) when absent or unparsable: nova-compute
// could not reach its cell with such a URL either, and other checks
// judge the config.
func cellOf(c *NovaConf) (string, []string) {
	v, ok := c.Get("DEFAULT", "transport_url")
	if !ok || v == "" {
		return "", nil
	}
	fp, err := CellFingerprint(v)
	if err != nil {
		return "", nil
	}
	hosts, err := CellHosts(v)
	if err != nil {
		return "", nil
	}
	return fp, hosts
}

func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// hostPort normalizes one host: lower case, an IPv6 address in brackets
// in its canonical form, and rabbit's default port 5672 made explicit
// (impl_rabbit connects to host.port or 5672), so "h" and "h:5672" are
// one cell.
func hostPort(scheme, h string) (string, error) {
	h = strings.ToLower(h)
	var name, port string
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", errCellHost
		}
		name, h = h[1:end], h[end+1:]
		a, err := netip.ParseAddr(name)
		if err != nil || !a.Is6() {
			return "", errCellHost
		}
		name = "[" + a.String() + "]"
		if h != "" {
			if h[0] != ':' {
				return "", errCellHost
			}
			port = h[1:]
		}
	} else {
		name, port, _ = strings.Cut(h, ":")
		if name == "" || strings.ContainsAny(name, " \t[]@") {
			return "", errCellHost
		}
	}
	if port == "" && strings.Contains(scheme, "rabbit") {
		port = "5672"
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", errCellPort
		}
		port = strconv.Itoa(n)
	}
	return name + ":" + port, nil
}

// virtualHost: the path after its '/', percent-decoded, as oslo reads it;
// none and empty alike are the default "/" (oslo's own default when the
// URL has none), so a spelling does not split one cell in two.
func virtualHost(path string) (string, error) {
	if i := strings.IndexAny(path, "?#"); i >= 0 { // the query holds options, not the cell
		path = path[:i]
	}
	v, err := url.PathUnescape(strings.TrimPrefix(path, "/"))
	if err != nil {
		return "", errCellVHost
	}
	if v == "" {
		v = "/"
	}
	return v, nil
}
