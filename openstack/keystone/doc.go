// Package keystone is the Identity API (Keystone) as vtpmctl calls it:
// users, projects and effective role assignments, read only, one small
// function per request (its pages followed).
package keystone
