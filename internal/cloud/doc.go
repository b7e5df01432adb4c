// Package cloud connects to an OpenStack cloud the way the openstack
// client does: clouds.yaml (+ secure.yaml) by --os-cloud/OS_CLOUD, or the
// OS_* environment, with TLS verified unless the user says otherwise.
package cloud
