package cloud

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/utils/v2/openstack/clientconfig"

	"github.com/vtpmctl/vtpmctl/internal/infile"
	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// Options are the global connection flags.
type Options struct {
	Cloud    string // --os-cloud / OS_CLOUD
	Region   string // --os-region-name / OS_REGION_NAME
	CACert   string // --os-cacert / OS_CACERT
	Insecure bool   // --insecure / OS_INSECURE
	Timeout  time.Duration
	Debug    io.Writer // nil: no request log
	// Version is vtpmctl's, sent first in every request's User-Agent
	// (vtpmctl/<version> gophercloud/<version>) so a cloud's API logs
	// can tell vtpmctl's requests apart; "" sends vtpmctl/dev.
	Version string
	// WrapTransport, when set, wraps the HTTP transport: tests count
	// requests or route a service through a fault proxy with it.
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// ConfigError is a problem with the user's configuration, not with the
// cloud: the CLI reports it as a usage error (exit 2). When an Option
// is at fault its words stand around it (Msg, then the option, then
// After), so a caller spells the option its own way (Message).
type ConfigError struct {
	Msg    string
	Option Option
	After  string
}

// Option is a connection setting, named apart from how a caller spells
// it (the CLI's --os-cloud, --timeout, --os-cacert).
type Option string

const (
	OptionCloud   Option = "cloud"
	OptionTimeout Option = "timeout"
	OptionCACert  Option = "cacert"
	OptionRegion  Option = "region"
)

// Message spells the error with name(option).
func (e *ConfigError) Message(name func(Option) string) string {
	if e.Option == "" {
		return e.Msg
	}
	return e.Msg + name(e.Option) + e.After
}

func (e *ConfigError) Error() string {
	return e.Message(func(o Option) string { return string(o) })
}

// Session is an authenticated connection.
type Session struct {
	Provider  *gophercloud.ProviderClient
	Endpoint  gophercloud.EndpointOpts
	CloudName string
	// auth: the credentials Connect resolved from clouds.yaml or OS_*,
	// kept (in memory only) so ForProject neither re-reads the file nor
	// re-parses it.
	auth gophercloud.AuthOptions
	// identityV3: the Keystone v3 endpoint Connect discovered; "" when
	// the cloud offered no v3 (ForProject then discovers again).
	identityV3 string
	opts       Options
	// slots bound the requests in flight of every client the session
	// makes (per-project ones too: they share its HTTP client).
	slots *parallel.Slots
}

// SearchPaths lists where clouds.yaml is looked for, in the openstack
// client's order.
func SearchPaths() []string {
	var p []string
	if v := os.Getenv("OS_CLIENT_CONFIG_FILE"); v != "" {
		p = append(p, v)
	}
	if wd, err := os.Getwd(); err == nil {
		p = append(p, filepath.Join(wd, "clouds.yaml"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		p = append(p, filepath.Join(home, ".config/openstack/clouds.yaml"))
	}
	return append(p, "/etc/openstack/clouds.yaml")
}

func foundCloudsFile() string {
	for _, p := range SearchPaths() {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// Connect authenticates. It fails with a *ConfigError when no cloud is
// configured or the named cloud does not exist.
func Connect(ctx context.Context, o Options) (*Session, error) {
	name := o.Cloud
	if name == "" {
		name = os.Getenv("OS_CLOUD")
	}
	copts := &clientconfig.ClientOpts{Cloud: name, RegionName: o.Region}
	var c *clientconfig.Cloud
	if name != "" {
		file := foundCloudsFile()
		if file == "" {
			return nil, &ConfigError{Msg: fmt.Sprintf("cloud %q: no clouds.yaml found (looked in %s)", name, strings.Join(SearchPaths(), ", "))}
		}
		clouds, err := clientconfig.LoadCloudsYAML()
		if err != nil {
			return nil, &ConfigError{Msg: fmt.Sprintf("%s: %v", file, err)}
		}
		if _, ok := clouds[name]; !ok {
			secure, _ := clientconfig.LoadSecureCloudsYAML()
			if _, ok := secure[name]; !ok {
				return nil, &ConfigError{Msg: fmt.Sprintf("cloud %q not found in %s (clouds there: %s)", name, file, strings.Join(sortedKeys(clouds), ", "))}
			}
		}
		c, err = clientconfig.GetCloudFromYAML(copts)
		if err != nil {
			return nil, &ConfigError{Msg: fmt.Sprintf("cloud %q in %s: %v", name, file, err)}
		}
	} else if os.Getenv("OS_AUTH_URL") == "" {
		return nil, &ConfigError{Msg: "no cloud configured: pass ", Option: OptionCloud, After: fmt.Sprintf(" NAME or set OS_CLOUD to an entry of clouds.yaml (looked in %s), or set OS_AUTH_URL and the other OS_* variables", strings.Join(SearchPaths(), ", "))}
	} else {
		c = &clientconfig.Cloud{}
	}

	ao, err := clientconfig.AuthOptions(copts)
	if err != nil {
		return nil, &ConfigError{Msg: fmt.Sprintf("cloud %q: %v", name, err)}
	}
	ao.AllowReauth = true
	// a person may choose these, so they may be words; a token is random
	for _, v := range []string{ao.Password, ao.ApplicationCredentialSecret, ao.Passcode} {
		RegisterPassword(v)
	}
	RegisterSecret(ao.TokenID)
	if o.Timeout <= 0 {
		return nil, &ConfigError{Option: OptionTimeout, After: fmt.Sprintf(" %s: must be positive (a request without a deadline can hang for ever)", o.Timeout)}
	}

	tlsConf, err := tlsConfig(c, o)
	if err != nil {
		return nil, err
	}
	pc, err := openstack.NewClient(ao.IdentityEndpoint)
	if err != nil {
		return nil, &ConfigError{Msg: Scrub(fmt.Sprintf("cloud %q: auth_url %q: %v", name, ao.IdentityEndpoint, err))}
	}
	slots := parallel.NewSlots(parallel.DefaultLimit)
	pc.HTTPClient = httpClient(tlsConf, o, slots)
	pc.UserAgent.Prepend(userAgent(o.Version))
	registerEndpoint(ao.IdentityEndpoint, "identity")
	v3, err := authenticate(ctx, pc, *ao)
	if err != nil {
		return nil, fmt.Errorf("authenticating to %s: %w", Scrub(ao.IdentityEndpoint), Friendly(err))
	}
	if t := pc.Token(); t != "" {
		RegisterSecret(t)
	}
	registerEndpoint(v3, "identity")
	region := o.Region
	if region == "" {
		region = c.RegionName
	}
	if region == "" {
		region = os.Getenv("OS_REGION_NAME")
	}
	iface := c.EndpointType
	if iface == "" {
		iface = os.Getenv("OS_INTERFACE")
	}
	return &Session{
		Provider:   pc,
		Endpoint:   gophercloud.EndpointOpts{Region: region, Availability: clientconfig.GetEndpointType(iface)},
		CloudName:  name,
		auth:       *ao,
		identityV3: v3,
		opts:       o,
		slots:      slots,
	}, nil
}

func tlsConfig(c *clientconfig.Cloud, o Options) (*tls.Config, error) {
	// clientconfig reads the CA, certificate and key files that clouds.yaml
	// or OS_CACERT/OS_CERT/OS_KEY name with a plain read: refuse a FIFO or
	// a device there first, as for every file a user names.
	for _, f := range []struct{ what, path string }{
		{"OS_CACERT", os.Getenv("OS_CACERT")}, {"cacert", c.CACertFile},
		{"OS_CERT", os.Getenv("OS_CERT")}, {"cert", c.ClientCertFile},
		{"OS_KEY", os.Getenv("OS_KEY")}, {"key", c.ClientKeyFile},
	} {
		if f.path == "" {
			continue
		}
		fh, err := infile.Open(f.path, 16<<20)
		if err != nil {
			return nil, &ConfigError{Msg: fmt.Sprintf("TLS settings: %s: %v", f.what, err)}
		}
		fh.Close()
	}
	conf, err := clientconfig.PrepareTLSConfig("OS_", c)
	if err != nil {
		return nil, &ConfigError{Msg: fmt.Sprintf("TLS settings: %v", err)}
	}
	if conf == nil {
		conf = &tls.Config{}
	}
	if o.CACert != "" {
		// A file the user names: a FIFO must not hang Connect, nor
		// /dev/zero fill memory; a CA bundle is well under 16 MiB.
		pem, err := infile.ReadFile(o.CACert, 16<<20)
		if err != nil {
			return nil, &ConfigError{Option: OptionCACert, After: fmt.Sprintf(": %v", err)}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &ConfigError{Option: OptionCACert, After: fmt.Sprintf(" %s: no PEM certificate in it", o.CACert)}
		}
		conf.RootCAs = pool
	}
	if o.Insecure {
		conf.InsecureSkipVerify = true
	}
	return conf, nil
}

// httpClient builds the one client every service of a session uses. From
// the outside in: policy (no payloads, honest paging), retries of
// idempotent reads, the response size cap, the debug log, the caller's
// wrapper (tests), the network.
func httpClient(conf *tls.Config, o Options, slots *parallel.Slots) http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = conf
	// Up to 64 requests are in flight (--concurrency); Go keeps 2
	// idle connections per host, so every other one was closed after
	// use and a new one (a TLS handshake) opened for the next request.
	tr.MaxIdleConnsPerHost = 128
	tr.MaxIdleConns = 512
	var rt http.RoundTripper = tr
	if o.WrapTransport != nil {
		rt = o.WrapTransport(rt)
	}
	if o.Debug != nil {
		rt = &debugTransport{next: rt, w: o.Debug}
	}
	rt = policyTransport{retryTransport{next: sizeLimitTransport{rt}, slots: slots}}
	return http.Client{Transport: rt, Timeout: o.Timeout, CheckRedirect: sameOriginRedirects}
}

// SetConcurrency bounds the requests the session has in flight at once
// (n < 1: parallel.DefaultLimit), across every goroutine and per-project
// client: a command's --concurrency. Set it before the work starts; the
// bound adapts downward when the cloud pushes back.
func (s *Session) SetConcurrency(n int) {
	if s.slots != nil {
		s.slots.SetMax(n)
	}
}

// Concurrency is the bound SetConcurrency set.
func (s *Session) Concurrency() int {
	if s.slots == nil {
		return parallel.DefaultLimit
	}
	return s.slots.Max()
}

// PushBack is how often the cloud asked the session to slow down (429,
// 503), and how far the bound fell for it.
func (s *Session) PushBack() parallel.SlotStats {
	if s.slots == nil {
		return parallel.SlotStats{}
	}
	return s.slots.Stats()
}

// HasPolicy says whether a client's transport chain starts with the
// policy layer (payload refusal, paging guard): tests assert it for
// every session a command opens.
func HasPolicy(c *http.Client) bool {
	_, ok := c.Transport.(policyTransport)
	return ok
}

// Compute returns a compute (Nova) client.
func (s *Session) Compute() (*gophercloud.ServiceClient, error) {
	return s.service("compute", openstack.NewComputeV2)
}

// Image returns an image (Glance v2) client.
func (s *Session) Image() (*gophercloud.ServiceClient, error) {
	return s.service("image", openstack.NewImageV2)
}

// Placement returns a Placement client.
func (s *Session) Placement() (*gophercloud.ServiceClient, error) {
	return s.service("placement", openstack.NewPlacementV1)
}

// BlockStorage returns a Cinder v3 client (volumes and their image
// metadata: what Nova reads for a volume-backed server).
func (s *Session) BlockStorage() (*gophercloud.ServiceClient, error) {
	return s.service("block-storage", openstack.NewBlockStorageV3)
}

// KeyManager returns a Barbican client.
func (s *Session) KeyManager() (*gophercloud.ServiceClient, error) {
	return s.service("key-manager", openstack.NewKeyManagerV1)
}

// Identity returns a Keystone v3 client. Keystone is often registered in
// one region only, so a region without it falls back to any region's.
func (s *Session) Identity() (*gophercloud.ServiceClient, error) {
	c, err := s.service("identity", openstack.NewIdentityV3)
	if err != nil && s.Endpoint.Region != "" {
		var nf *gophercloud.ErrEndpointNotFound
		if errors.As(err, &nf) || errors.As(err, new(gophercloud.ErrEndpointNotFound)) {
			eo := s.Endpoint
			eo.Region = ""
			if c2, err2 := openstack.NewIdentityV3(s.Provider, eo); err2 == nil {
				registerEndpoint(c2.Endpoint, "identity")
				return c2, nil
			}
		}
	}
	return c, err
}

func (s *Session) service(kind string, f func(*gophercloud.ProviderClient, gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error)) (*gophercloud.ServiceClient, error) {
	c, err := f(s.Provider, s.Endpoint)
	if err == nil {
		registerEndpoint(c.Endpoint, kind)
		return c, nil
	}
	var nf *gophercloud.ErrEndpointNotFound
	if errors.As(err, &nf) || errors.As(err, new(gophercloud.ErrEndpointNotFound)) {
		if ce := s.unknownRegion(); ce != nil && kind != "identity" { // Identity falls back to any region's
			return nil, ce
		}
		return nil, fmt.Errorf("no %s endpoint in the service catalog of cloud %q (region %q): %w", kind, s.CloudName, s.Endpoint.Region, err)
	}
	return nil, fmt.Errorf("%s endpoint of cloud %q (region %q): %w", kind, s.CloudName, s.Endpoint.Region, Friendly(err))
}

// Friendly shortens gophercloud's errors to one line a user can act on.
// The gophercloud error stays underneath, so callers still ask
// gophercloud.ResponseCodeIs(err, 401) rather than match the text.
func Friendly(err error) error {
	var code gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &code) {
		return &friendlyError{msg: APIErrorLine(code), err: err}
	}
	return err
}

// friendlyError is Friendly's one line over the error it shortens.
type friendlyError struct {
	msg string
	err error
}

func (e *friendlyError) Error() string { return e.msg }
func (e *friendlyError) Unwrap() error { return e.err }

// userAgent is the product token vtpmctl puts before gophercloud's
// (gophercloud.DefaultUserAgent, which carries gophercloud's version).
func userAgent(version string) string {
	if version == "" {
		version = "dev"
	}
	return "vtpmctl/" + version
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ForProject authenticates again with the same credentials, scoped to
// another project, over the same HTTP client (so guards and the debug log
// apply): Barbican only lists the token's own project's secrets. It costs
// one token POST: the credentials and the v3 endpoint are Connect's. A
// refusal keeps gophercloud's typed error (gophercloud.ResponseCodeIs).
func (s *Session) ForProject(ctx context.Context, projectID string) (*Session, error) {
	ao := s.auth
	if ao.ApplicationCredentialID != "" || ao.ApplicationCredentialName != "" {
		return nil, fmt.Errorf("application credentials are bound to one project and cannot be rescoped")
	}
	ao.AllowReauth = true
	ao.TenantID, ao.TenantName = "", ""
	ao.Scope = &gophercloud.AuthScope{ProjectID: projectID}
	pc, err := rescope(ctx, s.Provider.HTTPClient, s.Provider.UserAgent, s.identityV3, ao)
	if err != nil {
		return nil, Friendly(err)
	}
	if t := pc.Token(); t != "" {
		RegisterSecret(t)
	}
	return &Session{Provider: pc, Endpoint: s.Endpoint, CloudName: s.CloudName, auth: s.auth, identityV3: s.identityV3, opts: s.opts}, nil
}

// TokenRoles are the role names the session's token carries (implied
// roles included, as Keystone lists them).
func (s *Session) TokenRoles() ([]string, error) {
	res, ok := s.Provider.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return nil, fmt.Errorf("not a Keystone v3 token")
	}
	roles, err := res.ExtractRoles()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = r.Name
	}
	return names, nil
}

// TokenProject returns the ID of the project the session's token is
// scoped to, and whether the token carries the admin role.
func (s *Session) TokenProject() (projectID string, admin bool, err error) {
	res, ok := s.Provider.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return "", false, fmt.Errorf("not a Keystone v3 token")
	}
	p, err := res.ExtractProject()
	if err != nil || p == nil {
		return "", false, fmt.Errorf("the token is not scoped to a project")
	}
	roles, _ := res.ExtractRoles()
	for _, r := range roles {
		admin = admin || r.Name == "admin"
	}
	return p.ID, admin, nil
}
