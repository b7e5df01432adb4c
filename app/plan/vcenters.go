package plan

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/quote"
	"github.com/vtpmctl/vtpmctl/vsphere"
)

// VCenterTarget is one vCenter to read: its URL (host, host:port or
// https://host/sdk, without credentials), or FromEnv: GOVC_URL's, which
// may carry them.
type VCenterTarget struct {
	URL     string
	FromEnv bool
}

// GovcEnv is govc's environment as the caller read it: the vCenters'
// credentials (GOVC_USERNAME, GOVC_PASSWORD), GOVC_URL, GOVC_INSECURE
// (1 accepts any certificate) and GOVC_DATACENTER (one datacenter).
type GovcEnv struct {
	URL, Username, Password, Insecure, Datacenter string
}

// VCenterProblem is why a vCenter target cannot be read.
type VCenterProblem int

const (
	BadInsecure      VCenterProblem = iota // GOVC_INSECURE is no boolean (Value)
	URLUnset                               // FromEnv, and GOVC_URL is not set
	NotAURL                                // the target (Value) is no URL
	CredentialsGiven                       // the target carries credentials: they come from the environment only
	NoCredentials                          // no user for the vCenter (Value: its host)
)

// VCenterError is a vCenter target or environment that cannot be used:
// the caller's usage error, worded by the caller with its own name for
// the target.
type VCenterError struct {
	Problem VCenterProblem
	Value   string
}

func (e *VCenterError) Error() string {
	switch e.Problem {
	case BadInsecure:
		return fmt.Sprintf("GOVC_INSECURE=%q: use 1 or 0", quote.OneLine(e.Value))
	case URLUnset:
		return "vCenter from the environment: GOVC_URL is not set"
	case NotAURL:
		return fmt.Sprintf("vCenter %q is not a URL", quote.OneLine(e.Value))
	case CredentialsGiven:
		return "vCenter: credentials never go in its URL; set GOVC_USERNAME and GOVC_PASSWORD"
	}
	return "vCenter " + e.Value + ": set GOVC_USERNAME and GOVC_PASSWORD"
}

// readVCenters reads each vCenter in turn with govc's environment; a
// vCenter is checked just before it is read.
func (r *ImportResult) readVCenters(ctx context.Context) error {
	env := r.req.Env
	insecure := false
	if v := env.Insecure; v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return &VCenterError{BadInsecure, v}
		}
		insecure = b
	}
	cloud.RegisterPassword(env.Password)
	for _, t := range r.req.VCenters {
		vc, err := vcenter(t, env)
		if err != nil {
			return err
		}
		vc.Insecure, vc.Timeout = insecure, r.req.Timeout
		// The same per-request deadline as OpenStack's, and ctx is the
		// interrupt: a vCenter that never answers cannot hang the import.
		got, skip, _, err := vsphere.ReadVCenter(ctx, vc)
		if err != nil {
			return err
		}
		r.VMs, r.Skipped = append(r.VMs, got...), append(r.Skipped, skip...)
	}
	return nil
}

// vcenter is the vCenter t names, with the environment's credentials
// (or GOVC_URL's own), every password registered for redaction.
func vcenter(t VCenterTarget, env GovcEnv) (vsphere.VCenter, error) {
	target := t.URL
	if t.FromEnv {
		if target = env.URL; target == "" {
			return vsphere.VCenter{}, &VCenterError{Problem: URLUnset}
		}
	}
	if !strings.Contains(target, "://") {
		target = "https://" + target // govc's default scheme
	}
	u, err := url.Parse(target)
	if err != nil {
		return vsphere.VCenter{}, &VCenterError{NotAURL, target}
	}
	user, pass := env.Username, env.Password
	if u.User != nil {
		if !t.FromEnv {
			return vsphere.VCenter{}, &VCenterError{Problem: CredentialsGiven}
		}
		user = u.User.Username()
		pass, _ = u.User.Password()
		cloud.RegisterPassword(pass)
		u.User = nil
	}
	if user == "" {
		return vsphere.VCenter{}, &VCenterError{NoCredentials, u.Host}
	}
	return vsphere.VCenter{URL: u.String(), Username: user, Password: pass, Datacenter: env.Datacenter}, nil
}
