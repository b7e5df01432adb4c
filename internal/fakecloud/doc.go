// Package fakecloud is an OpenStack on 127.0.0.1 for faults a real
// service will not produce on demand (a 5xx, a 403 where an admin gets
// 200, a crafted name or link), answering with the local cloud's captured
// fixtures (Standard). Keystone's token API is real enough for
// gophercloud; every other path answers from routes a test declares.
//
// It is strict, as gophercloud's and cli/cli's test servers are: a route
// declares the query and microversion the request must carry
// ("GET /compute/v2.1/servers/detail?[all_tenants=true]&limit=1000
// [compute >=2.47]"), a request no route matches fails the test with its
// request line, and every request is recorded (Sent, SentTo) so a test
// asserts what was asked. A client that drops a filter or a microversion
// cannot pass by luck. The real services are in the integration tests.
package fakecloud
