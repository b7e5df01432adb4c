package hostcheck

import (
	"context"
	"errors"
	"testing"
)

// TestRunOnHostCancelled: host check's context (the CLI's, cancelled on
// SIGINT and SIGTERM) reaches the firmware parser: the template is read
// under it, and a cancelled context ends RunOnHost with its error, not
// with a report of reads cut short.
func TestRunOnHostCancelled(t *testing.T) {
	tr := newTree(t)
	debianFirmware(t, tr, kek2011, db2011)
	f, err := gather(tr.o)
	if err != nil {
		t.Fatal(err)
	}
	if f.SecureBoot.Err != nil || f.SecureBoot.SB == nil {
		t.Fatalf("template not read: %+v", f.SecureBoot)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if tf := readTemplate(ctx, f.LibvirtRoot, f.FirmwareChoice); !errors.Is(tf.Err, context.Canceled) {
		t.Fatalf("template read under a cancelled context: %+v, want context.Canceled", tf)
	}
	if rep, err := RunOnHost(ctx, tr.o); !errors.Is(err, context.Canceled) || rep != nil {
		t.Fatalf("RunOnHost under a cancelled context: %v, %v; want context.Canceled", rep, err)
	}
	if _, err := RunOnHost(context.Background(), tr.o); err != nil {
		t.Fatalf("RunOnHost: %v", err)
	}
}
