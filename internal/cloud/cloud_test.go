package cloud

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"
)

// --os-cacert names a file: a FIFO must not hang Connect (before: open
// blocked for ever) and a link to /dev/zero must not be read for ever;
// both are a configuration error naming the file.
func TestCACertRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ca.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero.pem")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CACERT", "")
	for _, path := range []string{fifo, zero} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := tlsConfig(&clientconfig.Cloud{}, Options{CACert: path}); done <- err }()
			select {
			case err := <-done:
				var ce *ConfigError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") {
					t.Fatalf("tlsConfig(--os-cacert %s) = %v, want a ConfigError naming it", path, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("tlsConfig(--os-cacert %s) still reading after 5 s", path)
			}
		})
	}
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
