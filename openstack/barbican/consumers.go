package barbican

import (
	"context"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

func consumersURL(km *gophercloud.ServiceClient, secretID string) string {
	return km.ServiceURL("secrets", secretID, "consumers")
}

// AddConsumer registers c on a secret (POST …/consumers at 1.1). Barbican
// answers 200 with the secret; registering the same consumer again is a
// no-op there (create_or_update_from).
func AddConsumer(ctx context.Context, km *gophercloud.ServiceClient, secretID string, c vtpmsecret.Consumer) error {
	_, err := km.Post(ctx, consumersURL(km, secretID), c, nil, &gophercloud.RequestOpts{
		OkCodes: []int{200, 201}, MoreHeaders: microversion(ConsumersMicroversion)})
	return err
}

// RemoveConsumer removes c (DELETE …/consumers with the same body, 1.1).
func RemoveConsumer(ctx context.Context, km *gophercloud.ServiceClient, secretID string, c vtpmsecret.Consumer) error {
	_, err := km.Request(ctx, http.MethodDelete, consumersURL(km, secretID), &gophercloud.RequestOpts{
		JSONBody: c, KeepResponseBody: false, OkCodes: []int{200, 204},
		MoreHeaders: microversion(ConsumersMicroversion)})
	return err
}

// DeleteSecret deletes a secret asking for version (e.g. "1.2", the one
// that refuses a secret with consumers: 400 "Secret cannot be deleted as
// it has consumers."); force adds ?force=true. vtpmctl never deletes a
// secret itself: the live test proves the refusal with it.
func DeleteSecret(ctx context.Context, km *gophercloud.ServiceClient, secretID, version string, force bool) error {
	u := km.ServiceURL("secrets", secretID)
	if force {
		u += "?force=true"
	}
	_, err := km.Delete(ctx, u, &gophercloud.RequestOpts{OkCodes: []int{204}, MoreHeaders: microversion(version)})
	return err
}
