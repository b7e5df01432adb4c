// Package scalecloud is a synthetic OpenStack for benchmarks: Keystone,
// Nova, Glance, Placement, Barbican and (with Config.VolumeBacked) Cinder
// on 127.0.0.1, in memory, sized by
// a Config (guests, projects, hypervisors, other servers, users) and
// generated deterministically from a seed. Every object is computed from
// its index (IDs carry it), so a 50,000-guest cloud costs the benchmark
// process a few megabytes, not the answers' size.
//
// It serves exactly the requests vtpmctl's audits make, with the real
// services' answer shapes (internal/fakecloud/testdata holds the captured
// ones) and paging rules, and counts every request by method and path
// template and every TCP connection. It is strict: a route or query
// parameter it does not know answers 501 and is counted as unexpected,
// so a benchmark never measures a request the fake answered wrongly.
package scalecloud
