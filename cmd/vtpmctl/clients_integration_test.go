//go:build integration

package main

import (
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/internal/devcloudtest"
)

// testClients are the clients most integration tests need: the admin's
// Glance and Nova (to make images and flavors) and demo's Nova at 2.37
// (servers with networks: none), demo being the owner of the guests.
func testClients(t *testing.T) (imageClient, acompute, dcompute *gophercloud.ServiceClient) {
	t.Helper()
	admin := devcloudtest.Connect(t, "devcloud-admin")
	demo := devcloudtest.Connect(t, "devcloud-demo")
	imageClient, _ = admin.Image()
	acompute, _ = admin.Compute()
	dcompute, _ = demo.Compute()
	dcompute.Microversion = "2.37"
	return imageClient, acompute, dcompute
}
