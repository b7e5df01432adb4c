// Package scale generates a synthetic OpenStack of any size on a
// fakecloud: Keystone's projects, users and roles, Nova, Glance,
// Placement, Barbican and (with Config.VolumeBacked) Cinder, sized by a
// Config (guests, projects, hypervisors, other servers, users) and
// generated deterministically from a seed. Every object is computed from
// its index (IDs carry it), so a 50,000-guest cloud costs the benchmark
// process a few megabytes, not the answers' size.
//
// It does not serve: New registers the cloud's data and routes on a
// fakecloud.Cloud, which serves them, strictly (a route or query
// parameter the cloud does not know fails the test, or is counted as
// unexpected in a bench), and counts every request by method and path
// template and every TCP connection. The routes answer exactly the
// requests vtpmctl's audits make, with the real services' answer shapes
// (internal/fakecloud/testdata holds the captured ones) and paging rules.
package scale
