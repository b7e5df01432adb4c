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
	sum := sha256.Sum256([]byte(key))
	return "mq-" + hex.EncodeToString(sum[:])[:12], nil
}

// cellKey is the normalized URL the fingerprint hashes: scheme, sorted
// host:port list and virtual host, one per line; no credentials.
func cellKey(transportURL string) (string, error) {
	s := strings.TrimSpace(transportURL)
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !validScheme(scheme) {
		return "", errCellScheme
	}
	// urlparse's netloc ends at the first '/', '?' or '#'; a password
	// holding one of them must be percent-encoded for oslo too.
	netloc, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		netloc, path = rest[:i], rest[i:]
	}
	var hosts []string
	for _, h := range strings.Split(netloc, ",") {
		if h == "" { // oslo skips empty entries
			continue
		}
		// oslo splits the credentials off at the first '@'.
		if _, after, found := strings.Cut(h, "@"); found {
			h = after
		}
		hp, err := hostPort(strings.ToLower(scheme), h)
		if err != nil {
			return "", err
		}
		hosts = append(hosts, hp)
	}
	if len(hosts) == 0 {
		return "", errCellHost
	}
	sort.Strings(hosts)
	vhost, err := virtualHost(path)
	if err != nil {
		return "", err
	}
	return strings.ToLower(scheme) + "\n" + strings.Join(hosts, ",") + "\n" + vhost, nil
}

// cellOf: the fingerprint of this host's [DEFAULT] transport_url, ""
// (unknown) when absent or unparsable: nova-compute could not reach its
// cell with such a URL either, and other checks judge the config.
func cellOf(c *NovaConf) string {
	v, ok := c.Get("DEFAULT", "transport_url")
	if !ok || v == "" {
		return ""
	}
	fp, err := CellFingerprint(v)
	if err != nil {
		return ""
	}
	return fp
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
