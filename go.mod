module github.com/vtpmctl/vtpmctl

go 1.26.8

require (
	github.com/gophercloud/gophercloud/v2 v2.16.0
	github.com/gophercloud/utils/v2 v2.0.0-20260626221802-4ae35253ac13
	github.com/rogpeppe/go-internal v1.16.0
	github.com/urfave/cli/v3 v3.14.0
	github.com/vmware/govmomi v0.56.0
	go.yaml.in/yaml/v3 v3.0.6
	gopkg.in/ini.v1 v1.68.0
	libvirt.org/go/libvirt v1.12007.0
)

require (
	github.com/gofrs/uuid/v5 v5.4.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/tools v0.48.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
