//go:build integration

package main

import (
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// novaRelease is the cloud under test's release as Nova's rules know it.
func cloudRelease(t testing.TB) nova.Release {
	r, err := nova.ParseRelease(devcloudtest.Release())
	if err != nil {
		t.Fatalf("DEVCLOUD_RELEASE: %v", err)
	}
	return r
}

// since runs the test on clouds of release min and later; on an older
// one it is reported as not applicable, never as passed.
func since(t testing.TB, min nova.Release) {
	t.Helper()
	if cloudRelease(t) < min {
		devcloudtest.NotFor(t, "applies from "+min.String())
	}
}
