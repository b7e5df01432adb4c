// Package paging keeps list requests honest: a server that hands back a
// page it already sent, pages without end, or a next link to another host
// is stopped with a clear error instead of looping, growing memory, or
// receiving the caller's token.
//
// A list marks its context with Guard; the HTTP transport (internal/cloud)
// calls Check for every GET made under that context.
package paging
