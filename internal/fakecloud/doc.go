// Package fakecloud is an OpenStack on 127.0.0.1 for faults a real
// service will not produce on demand (a 5xx, a 403 where an admin gets
// 200, a crafted name or link). Keystone's token API is real enough for
// gophercloud; every other path answers from handlers a test sets. The
// real services are in the integration tests.
package fakecloud
