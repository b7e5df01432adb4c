//go:build integration

package devcloudtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// ComputeHost is one libvirt compute of a release cloud, reached as its
// own processes see it: commands run in its namespaces and chroot, and its
// /tmp is also a directory of this process.
type ComputeHost struct {
	Name string // Nova's host name
	cmd  func(args ...string) *exec.Cmd
	tmp  string // the host's /tmp, as this process sees it
}

var chrootEnv = []string{"/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "LANG=C.UTF-8"}

// HostA is the release cloud's own libvirt compute (host devcloud): the
// chroot, in whose network namespace the test already runs.
func HostA(t testing.TB) ComputeHost {
	t.Helper()
	if Root() == "" {
		t.Fatal("HostA needs a release cloud (DEVCLOUD_ROOT)")
	}
	return ComputeHost{Name: "devcloud", tmp: InRoot("/tmp"), cmd: func(args ...string) *exec.Cmd {
		return exec.Command("chroot", append(append([]string{Root()}, chrootEnv...), args...)...)
	}}
}

// secondCompute is devcloud/second-compute.sh, from the test's directory.
func secondCompute(args ...string) *exec.Cmd {
	script := filepath.Join("..", "..", "devcloud", "second-compute.sh")
	return exec.Command("bash", append([]string{script, Release()}, args...)...)
}

// HostBUp says whether devcloud/second-compute.sh has host B running
// beside the cloud under test.
func HostBUp() bool {
	return Release() != "zed" && secondCompute("status").Run() == nil
}

// HostB is the second libvirt compute of devcloud/second-compute.sh (host
// devcloud-b).
func HostB(t testing.TB) ComputeHost {
	t.Helper()
	if !HostBUp() {
		t.Fatalf("host B is not up: bash devcloud/second-compute.sh %s up", Release())
	}
	// second-compute.sh keeps B's /tmp beside the release's chroot
	tmp := filepath.Join(filepath.Dir(Root()), "host-b", "state", "tmp")
	return ComputeHost{Name: "devcloud-b", tmp: tmp, cmd: func(args ...string) *exec.Cmd {
		return secondCompute(append([]string{"in"}, args...)...)
	}}
}

// ForgetVTPMSecrets undefines the host's persistent vtpm libvirt secrets
// of these instances: Nova leaves a host-mode guest's on the source of a
// cold migration (confirmed), and deleting the server elsewhere never
// removes it. For cleanups: errors are ignored.
func (h ComputeHost) ForgetVTPMSecrets(instances ...string) {
	out, err := h.virsh("secret-list")
	if err != nil {
		return
	}
	want := map[string]bool{}
	for _, id := range instances {
		want[id] = true
	}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[1] == "vtpm" && want[f[2]] {
			h.virsh("secret-undefine", f[0])
		}
	}
}

// HasTPMState says whether the host holds a guest's swtpm state directory.
func (h ComputeHost) HasTPMState(t testing.TB, instance string) bool {
	t.Helper()
	out, err := h.run("sh", "-c", `[ -e "/var/lib/libvirt/swtpm/$1" ] && echo yes || echo no`, "sh", instance)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out)) == "yes"
}

// RunCLI runs the vtpmctl CLI on the host as an operator would there (no
// --root: the host's own files, programs and libvirtd): this test binary,
// copied into the host's /tmp, is the CLI when its name is "vtpmctl"
// (testscript.Main). It returns stdout and the exit status.
func (h ComputeHost) RunCLI(t testing.TB, args ...string) ([]byte, int) {
	t.Helper()
	out, errb, code := h.RunCLIExit(t, args...)
	if code > 1 {
		t.Fatalf("%s: vtpmctl %s: exit status %d: %s", h.Name, strings.Join(args, " "), code, strings.TrimSpace(string(errb)))
	}
	return out, code
}

// RunCLIExit is RunCLI for a run that may refuse (exit 2): stdout,
// stderr and the exit status, whatever it is.
func (h ComputeHost) RunCLIExit(t testing.TB, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("vtpmctl-cli-%d-%d", os.Getpid(), workSeq.Add(1))
	dir := filepath.Join(h.tmp, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vtpmctl"), bin, 0o700); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	c := h.cmd(append([]string{"/tmp/" + name + "/vtpmctl"}, args...)...)
	c.Stdout, c.Stderr = &out, &errb
	err = c.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.Bytes(), errb.Bytes(), 0
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return out.Bytes(), errb.Bytes(), exit.ExitCode()
	}
	t.Fatalf("%s: vtpmctl %s: %v: %s", h.Name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	return nil, nil, 0
}

func (h ComputeHost) run(args ...string) ([]byte, error) {
	var out, errb bytes.Buffer
	c := h.cmd(args...)
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("%s: %s: %v: %s", h.Name, args[0], err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

func (h ComputeHost) virsh(args ...string) ([]byte, error) {
	return h.run(append([]string{"virsh", "-c", "qemu+unix:///system?socket=/var/tmp/vtpmctl-devcloud/run/libvirt/libvirt-sock"}, args...)...)
}

// VTPMSecret is the UUID of the libvirt secret holding a guest's vTPM
// key on this host ("" when the host has none).
func (h ComputeHost) VTPMSecret(t testing.TB, instance string) string {
	t.Helper()
	out, err := h.virsh("secret-list")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[1] == "vtpm" && f[2] == instance {
			return f[0]
		}
	}
	return ""
}

// TPMState is what a guest's swtpm state holds that a migration must
// carry: the endorsement key (its public area's SHA-256; swtpm_setup made
// it when the guest was first booted) and the text of MarkerIndex.
type TPMState struct {
	EK     string
	Marker string // "" when the index is not defined
}

// MarkerIndex is the owner NV index the tests write their marker into.
const MarkerIndex = 0x01000100

var workSeq atomic.Int64

// ReadTPM opens a copy of a guest's TPM state (so the guest may run) with
// the key from the host's libvirt secret and reads the EK and the marker.
// Only host mode's secret can be read back from libvirt (it is not
// private); the key goes to a file only swtpm's user reads, never to output.
// TPMStateHash is the SHA-256 of a guest's encrypted swtpm state file on
// the host: equal on two hosts, the state arrived as it was (read while the
// guest is off, since a running swtpm rewrites it).
func (h ComputeHost) TPMStateHash(t testing.TB, instance string) string {
	t.Helper()
	out, err := h.run("sha256sum", "/var/lib/libvirt/swtpm/"+instance+"/tpm2/tpm2-00.permall")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	if len(f) == 0 || len(f[0]) != 64 {
		t.Fatalf("%s: sha256sum printed %q", h.Name, out)
	}
	return f[0]
}

func (h ComputeHost) ReadTPM(t testing.TB, instance string) TPMState {
	return h.openTPM(t, instance, "")
}

// WriteTPMMarker writes text into MarkerIndex of a guest's TPM state, in
// place: the guest must be stopped (its swtpm would overwrite the state).
func (h ComputeHost) WriteTPMMarker(t testing.TB, instance, text string) TPMState {
	if text == "" {
		t.Fatal("WriteTPMMarker: empty marker")
	}
	return h.openTPM(t, instance, text)
}

func (h ComputeHost) openTPM(t testing.TB, instance, marker string) TPMState {
	t.Helper()
	sec := h.VTPMSecret(t, instance)
	if sec == "" {
		t.Fatalf("%s has no vtpm libvirt secret for %s", h.Name, instance)
	}
	name := fmt.Sprintf("vtpmctl-tpm-%d-%d", os.Getpid(), workSeq.Add(1))
	in, dir := "/tmp/"+name, filepath.Join(h.tmp, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	b64, err := h.virsh("secret-get-value", sec)
	if err != nil {
		t.Fatal(err)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b64)))
	if err != nil {
		t.Fatalf("%s: secret %s is not base64", h.Name, sec)
	}
	if err := os.WriteFile(filepath.Join(dir, "key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	state := "/var/lib/libvirt/swtpm/" + instance + "/tpm2"
	if marker == "" {
		if _, err := h.run("cp", "-a", state, in+"/state"); err != nil {
			t.Fatal(err)
		}
		state = in + "/state"
	}
	if _, err := h.run("chown", "-R", "tss:tss", in); err != nil {
		t.Fatal(err)
	}
	_, err = h.run("setpriv", "--reuid=tss", "--regid=tss", "--init-groups",
		"swtpm", "socket", "--tpm2", "--tpmstate", "dir="+state+",mode=0600",
		"--key", "pwdfile="+in+"/key,mode=aes-256-cbc",
		"--server", "type=unixio,path="+in+"/srv.sock", "--ctrl", "type=unixio,path="+in+"/ctrl.sock",
		"--flags", "not-need-init,startup-clear", "--log", "file="+in+"/swtpm.log",
		"--daemon", "--pid", "file="+in+"/swtpm.pid")
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "swtpm.log"))
		t.Fatalf("swtpm on %s's state of %s (wrong key?): %v\n%s", h.Name, instance, err, log)
	}
	defer h.stopSwtpm(t, in, dir)
	conn, err := net.DialTimeout("unix", filepath.Join(dir, "srv.sock"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	tpm := tpmConn{conn}
	var st TPMState
	if st.EK, err = tpm.ekHash(); err != nil {
		t.Fatalf("%s, %s: %v", h.Name, instance, err)
	}
	if marker != "" {
		if err := tpm.writeMarker(marker); err != nil {
			t.Fatalf("%s, %s: %v", h.Name, instance, err)
		}
	}
	if st.Marker, err = tpm.readMarker(); err != nil {
		t.Fatalf("%s, %s: %v", h.Name, instance, err)
	}
	return st
}

// stopSwtpm shuts the offline swtpm down through its control socket and
// waits until it has written its state and exited.
func (h ComputeHost) stopSwtpm(t testing.TB, in, dir string) {
	t.Helper()
	if _, err := h.run("swtpm_ioctl", "--unix", in+"/ctrl.sock", "-s"); err != nil {
		t.Errorf("stop swtpm: %v", err)
	}
	for i := 0; i < 50; i++ {
		raw, err := os.ReadFile(filepath.Join(dir, "swtpm.pid"))
		if err != nil {
			return // swtpm removes its PID file on exit
		}
		if _, err := os.Stat("/proc/" + strings.TrimSpace(string(raw))); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s: the offline swtpm in %s did not exit", h.Name, in)
}

// tpmConn speaks raw TPM 2.0 commands to an swtpm server socket (TPM 2.0
// Library Part 3), so no tpm2-tools are needed in any chroot.
type tpmConn struct{ rw io.ReadWriter }

const (
	tagNoSessions = 0x8001
	tagSessions   = 0x8002
	rhOwner       = 0x40000001
	rsPW          = 0x40000009
	ekHandle      = 0x81010001
)

// call sends one command, with one empty-password session when auth, and
// returns the response after its header.
func (c tpmConn) call(cc uint32, handles []uint32, auth bool, params []byte) ([]byte, error) {
	var body bytes.Buffer
	binary.Write(&body, binary.BigEndian, cc)
	for _, h := range handles {
		binary.Write(&body, binary.BigEndian, h)
	}
	tag := uint16(tagNoSessions)
	if auth {
		tag = tagSessions
		// authorizationSize, then handle, nonce (empty), attributes, hmac (empty)
		be(&body, uint32(9), uint32(rsPW), uint16(0), uint8(0), uint16(0))
	}
	body.Write(params)
	var cmd bytes.Buffer
	be(&cmd, tag, uint32(6+body.Len()))
	cmd.Write(body.Bytes())
	if _, err := c.rw.Write(cmd.Bytes()); err != nil {
		return nil, err
	}
	var hdr struct {
		Tag  uint16
		Size uint32
		RC   uint32
	}
	if err := binary.Read(c.rw, binary.BigEndian, &hdr); err != nil {
		return nil, err
	}
	if hdr.Size < 10 {
		return nil, fmt.Errorf("TPM response of %d bytes", hdr.Size)
	}
	rest := make([]byte, hdr.Size-10)
	if _, err := io.ReadFull(c.rw, rest); err != nil {
		return nil, err
	}
	if hdr.RC != 0 {
		return nil, tpmError{cc, hdr.RC}
	}
	return rest, nil
}

// be appends fixed-size values, big-endian (the TPM's byte order).
func be(b *bytes.Buffer, vals ...any) {
	for _, v := range vals {
		binary.Write(b, binary.BigEndian, v)
	}
}

type tpmError struct{ cc, rc uint32 }

func (e tpmError) Error() string { return fmt.Sprintf("TPM command 0x%x: rc 0x%x", e.cc, e.rc) }

// tpm2b reads a size-prefixed buffer at off.
func tpm2b(b []byte, off int) ([]byte, error) {
	if len(b) < off+2 {
		return nil, errors.New("short TPM response")
	}
	n := int(binary.BigEndian.Uint16(b[off:]))
	if len(b) < off+2+n {
		return nil, errors.New("short TPM response")
	}
	return b[off+2 : off+2+n], nil
}

// ekHash is the SHA-256 of the persistent EK's public area (ReadPublic).
func (c tpmConn) ekHash() (string, error) {
	r, err := c.call(0x173, []uint32{ekHandle}, false, nil)
	if err != nil {
		return "", fmt.Errorf("EK 0x%x: %w", ekHandle, err)
	}
	pub, err := tpm2b(r, 0)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:]), nil
}

// markerSize is the data size of MarkerIndex (NV_ReadPublic), or 0 when
// it is not defined.
func (c tpmConn) markerSize() (int, error) {
	r, err := c.call(0x169, []uint32{MarkerIndex}, false, nil)
	var te tpmError
	if errors.As(err, &te) && te.rc&0xBF == 0x8B {
		return 0, nil // TPM_RC_HANDLE (of the first handle): no such index
	}
	if err != nil {
		return 0, err
	}
	pub, err := tpm2b(r, 0) // TPMS_NV_PUBLIC: index, nameAlg, attributes, authPolicy, dataSize
	if err != nil || len(pub) < 10 {
		return 0, errors.New("short NV public area")
	}
	policy, err := tpm2b(pub, 10)
	if err != nil || len(pub) < 12+len(policy)+2 {
		return 0, errors.New("short NV public area")
	}
	return int(binary.BigEndian.Uint16(pub[12+len(policy):])), nil
}

func (c tpmConn) readMarker() (string, error) {
	n, err := c.markerSize()
	if err != nil || n == 0 {
		return "", err
	}
	r, err := c.call(0x14E, []uint32{rhOwner, MarkerIndex}, true, binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, uint16(n)), 0))
	if err != nil {
		return "", fmt.Errorf("NV_Read: %w", err)
	}
	data, err := tpm2b(r, 4) // after parameterSize
	return string(data), err
}

// writeMarker defines MarkerIndex (owner read/write, no dictionary-attack
// lockout, the marker's size) and writes the marker into it.
func (c tpmConn) writeMarker(text string) error {
	n, err := c.markerSize()
	if err != nil {
		return err
	}
	if n != 0 && n != len(text) {
		return fmt.Errorf("NV index 0x%x already holds %d bytes, not %d", MarkerIndex, n, len(text))
	}
	if n == 0 {
		const attrs = 1<<1 | 1<<2 | 1<<17 | 1<<18 | 1<<25 // OWNERWRITE AUTHWRITE OWNERREAD AUTHREAD NO_DA
		var pub bytes.Buffer
		be(&pub, uint32(MarkerIndex), uint16(0x000B), uint32(attrs), uint16(0), uint16(len(text)))
		var p bytes.Buffer
		be(&p, uint16(0), uint16(pub.Len())) // empty auth value, then the public area
		p.Write(pub.Bytes())
		if _, err := c.call(0x12A, []uint32{rhOwner}, true, p.Bytes()); err != nil {
			return fmt.Errorf("NV_DefineSpace: %w", err)
		}
	}
	var p bytes.Buffer
	binary.Write(&p, binary.BigEndian, uint16(len(text)))
	p.WriteString(text)
	binary.Write(&p, binary.BigEndian, uint16(0)) // offset
	if _, err := c.call(0x137, []uint32{rhOwner, MarkerIndex}, true, p.Bytes()); err != nil {
		return fmt.Errorf("NV_Write: %w", err)
	}
	return nil
}
