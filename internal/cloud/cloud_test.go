package cloud

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"

	"github.com/vtpmctl/vtpmctl/internal/infile/infiletest"
)

// --os-cacert names a file: a FIFO must not hang Connect (before: open
// blocked for ever) and a link to /dev/zero must not be read for ever;
// both are a configuration error naming the file.
func TestCACertRefusesNonRegular(t *testing.T) {
	t.Setenv("OS_CACERT", "")
	infiletest.Refused(t, "ca.pem", func(path string) error {
		_, err := tlsConfig(&clientconfig.Cloud{}, Options{CACert: path})
		var ce *ConfigError
		if err != nil && !errors.As(err, &ce) {
			t.Errorf("--os-cacert %s: %v is not a ConfigError (exit 2)", path, err)
		}
		return err
	})
}

// The TLS files clouds.yaml and OS_* name are read by clientconfig, not
// by us: a FIFO there must be refused before that read blocks for ever.
func TestTLSFilesFromCloudsYAMLRefuseNonRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ca.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		cloud clientconfig.Cloud
		env   string
	}{
		{"cacert", clientconfig.Cloud{CACertFile: fifo}, ""},
		{"cert", clientconfig.Cloud{ClientCertFile: fifo}, ""},
		{"key", clientconfig.Cloud{ClientKeyFile: fifo}, ""},
		{"OS_CACERT", clientconfig.Cloud{}, fifo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OS_CACERT", tc.env)
			done := make(chan error, 1)
			go func() { _, err := tlsConfig(&tc.cloud, Options{}); done <- err }()
			select {
			case err := <-done:
				var ce *ConfigError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.name+": "+fifo+": a FIFO") {
					t.Fatalf("tlsConfig = %v, want a ConfigError naming %s and the FIFO", err, tc.name)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("tlsConfig still reading a FIFO after 5 s")
			}
		})
	}
}
