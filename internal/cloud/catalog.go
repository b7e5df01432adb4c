package cloud

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

// The catalog's regions: a service one region's catalog entry shares
// with another's (one Barbican behind two regions) serves both, and what
// it holds may belong to either region's other services.

// SharedRegions are the regions whose catalog entry of kind ("key-manager")
// lists, at the session's interface, the very endpoint the session uses
// for kind (URLs compared by scheme, host, port and path, without a
// trailing slash): the session's own region first, then the others in
// the catalog's order. One region: the service is that region's alone.
// It reads the token's catalog; no request is sent.
func (s *Session) SharedRegions(kind string) ([]string, error) {
	cat, err := s.catalog()
	if err != nil {
		return nil, err
	}
	eo := s.Endpoint
	eo.ApplyDefaults(kind)
	// the endpoint gophercloud chose (openstack.V3EndpointURL: the first
	// of the type, interface and region asked for)
	var own *tokens.Endpoint
	for _, ep := range endpointsOf(cat, eo) {
		if eo.Region == "" || regionOf(ep) == eo.Region || ep.Region == eo.Region {
			own = &ep
			break
		}
	}
	if own == nil {
		return nil, fmt.Errorf("no %s endpoint in the service catalog of cloud %q (region %q)", kind, s.CloudName, s.Endpoint.Region)
	}
	want := NormalURL(own.URL)
	regions := []string{regionOf(*own)}
	for _, ep := range endpointsOf(cat, eo) {
		if r := regionOf(ep); NormalURL(ep.URL) == want && !slices.Contains(regions, r) {
			regions = append(regions, r)
		}
	}
	return regions, nil
}

// ComputeIn returns a compute (Nova) client for region's own endpoint at
// the session's interface: that region's exactly (a region with none is
// an error, never another region's Nova).
func (s *Session) ComputeIn(region string) (*gophercloud.ServiceClient, error) {
	cat, err := s.catalog()
	if err != nil {
		return nil, err
	}
	eo := s.Endpoint
	eo.ApplyDefaults("compute")
	for _, ep := range endpointsOf(cat, eo) {
		if regionOf(ep) == region || ep.Region == region {
			c := &gophercloud.ServiceClient{ProviderClient: s.Provider, Endpoint: gophercloud.NormalizeURL(ep.URL), Type: "compute"}
			registerEndpoint(c.Endpoint, "compute")
			return c, nil
		}
	}
	return nil, fmt.Errorf("no compute endpoint (interface %s) for region %q in the service catalog of cloud %q", eo.Availability, region, s.CloudName)
}

// catalog is the service catalog of the session's token.
func (s *Session) catalog() (*tokens.ServiceCatalog, error) {
	res, ok := s.Provider.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return nil, fmt.Errorf("not a Keystone v3 token: the catalog's regions cannot be read")
	}
	return res.ExtractServiceCatalog()
}

// endpointsOf are the catalog's endpoints of eo's type (or an alias of
// it), name (when set) and interface, in the catalog's order.
func endpointsOf(cat *tokens.ServiceCatalog, eo gophercloud.EndpointOpts) []tokens.Endpoint {
	var out []tokens.Endpoint
	for _, e := range cat.Entries {
		if !slices.Contains(eo.Types(), e.Type) || eo.Name != "" && e.Name != eo.Name {
			continue
		}
		for _, ep := range e.Endpoints {
			if gophercloud.Availability(ep.Interface) == eo.Availability {
				out = append(out, ep)
			}
		}
	}
	return out
}

// regionOf is an endpoint's region: Keystone's region_id, else the
// older region.
func regionOf(ep tokens.Endpoint) string {
	if ep.RegionID != "" {
		return ep.RegionID
	}
	return ep.Region
}

// NormalURL is u as two catalog entries are compared: scheme and host in
// lower case, the scheme's default port written out, the path without
// its trailing slash, no query or fragment. A URL that does not parse is
// itself, without a trailing slash.
func NormalURL(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || p.Host == "" {
		return strings.TrimRight(u, "/")
	}
	scheme, host, port := strings.ToLower(p.Scheme), strings.ToLower(p.Hostname()), p.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port + strings.TrimRight(p.EscapedPath(), "/")
}

// unknownRegion is a *ConfigError when the session's region is in no
// endpoint of the token's catalog: a region misspelt (--os-region-name,
// region_name, OS_REGION_NAME) is a configuration error, as an unknown
// cloud is, not a service the cloud lacks.
func (s *Session) unknownRegion() *ConfigError {
	if s.Endpoint.Region == "" {
		return nil
	}
	cat, err := s.catalog()
	if err != nil {
		return nil
	}
	var regions []string
	for _, e := range cat.Entries {
		for _, ep := range e.Endpoints {
			r := regionOf(ep)
			if r == s.Endpoint.Region || ep.Region == s.Endpoint.Region {
				return nil
			}
			if r != "" && !slices.Contains(regions, r) {
				regions = append(regions, r)
			}
		}
	}
	slices.Sort(regions)
	return &ConfigError{Msg: fmt.Sprintf("region %q is not in the service catalog of cloud %q (regions there: %s): check ", s.Endpoint.Region, s.CloudName, strings.Join(regions, ", ")),
		Option: OptionRegion, After: ", region_name in clouds.yaml or OS_REGION_NAME"}
}
