// Package output renders command results the way the openstack client
// does: -f table|json|yaml|value and -c COLUMN selection, for a single
// record (a "show") or a list of rows.
package output
