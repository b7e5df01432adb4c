package vcsim

import (
	"context"
	"net/url"
	"testing"

	"github.com/vmware/govmomi"
)

// The simulator answers with the credentials Start returns, and only
// with them.
func TestStart(t *testing.T) {
	u, user, pass := Start(t, 1)
	ctx := context.Background()
	good := *u
	good.User = url.UserPassword(user, pass)
	c, err := govmomi.NewClient(ctx, &good, true)
	if err != nil {
		t.Fatal(err)
	}
	c.Logout(ctx)
	bad := *u
	bad.User = url.UserPassword(user, "wrong")
	if _, err := govmomi.NewClient(ctx, &bad, true); err == nil {
		t.Error("a wrong password logged in")
	}
}
