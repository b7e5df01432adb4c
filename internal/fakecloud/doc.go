// Package fakecloud is the project's one fake OpenStack: every test that
// needs an OpenStack API without the real services serves it from here,
// and so does the fault-injecting proxy (faults.go: StartProxy, in front
// of this fake or of a real cloud) for the faults a real service will
// not produce on demand. vcsim starts govmomi's vCenter simulator.
//
// It is strict, as gophercloud's test servers and cli/cli's httpmock are:
// a route declares the query, microversion and body the request must
// carry ("GET /compute/v2.1/servers/detail?[all_tenants=true]&limit=1000
// [compute >=2.47]"), a request no route matches fails the test with its
// request line, a stub no request used fails it when it ends (Verify;
// Optional says why a route may go unused), and every request is recorded
// (Sent, SentTo, Requests) and counted (Stats) so a test asserts what was
// asked. A client that drops a filter or a microversion cannot pass by
// luck.
//
// One Keystone serves every fake: admin's password login, tokens scoped
// to a project (any ID, or only the added projects), the catalog pointing
// at the fake, the project list; a service request must carry a token it
// issued. Paging helpers cut pages as Nova, Cinder and Glance (markers)
// and Barbican (offsets, old and new next links) do.
//
// Standard answers with the local cloud's captured fixtures; the
// synthetic cloud of any size (internal/fakecloud/scale) registers its
// generated routes on a fake; a fake serves a test (New, NewTLS) or a
// bench without one (Serve: what would fail a test is counted instead).
// The real services are in the integration tests.
package fakecloud
