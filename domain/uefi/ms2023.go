package uefi

import (
	"embed"
	"encoding/hex"
)

// Microsoft's 2023 Secure Boot certificates, public, as DER. They were
// taken from the KEK and db that Debian forky's ovmf-generic
// 2026.08+ds-2 enrols in /usr/share/OVMF/OVMF_VARS_4M.ms.fd (read with
// this package), and are byte for byte the PEM copies in Debian's
// python3-virt-firmware 26.9 (virt/firmware/certs/microsoft.com/); 24.11
// ships the first three. The tests hold all three sources to these files.
//
//go:embed ms2023_certs/*.der
var ms2023Files embed.FS

// MS2023Cert is one embedded certificate and the variable it belongs in.
type MS2023Cert struct {
	Variable string // "KEK" or "db"
	Subject  string // its subject CN
	SHA256   string // hex of the DER's SHA-256
	DER      []byte
}

// ms2023: the certificates, in the order forky's template enrols them
// (and AddMicrosoft2023 appends them). A fingerprint is a constant here,
// not computed from the file: a file changed by mistake fails
// AddMicrosoft2023's check of its own output, and the tests.
var ms2023 = []struct{ variable, subject, sha256, file string }{
	{"KEK", "Microsoft Corporation KEK 2K CA 2023", "3cd3f0309edae228767a976dd40d9f4affc4fbd5218f2e8cc3c9dd97e8ac6f9d", "MicrosoftCorporationKEK2KCA2023.der"},
	{"db", "Windows UEFI CA 2023", "076f1fea90ac29155ebf77c17682f75f1fdd1be196da302dc8461e350a9ae330", "WindowsUEFICA2023.der"},
	{"db", "Microsoft UEFI CA 2023", "f6124e34125bee3fe6d79a574eaa7b91c0e7bd9d929c1a321178efd611dad901", "MicrosoftUEFICA2023.der"},
	{"db", "Microsoft Option ROM UEFI CA 2023", "e5be3e64c6e66a281457ecdece0d6d0787577aad2a3a0144262c10c14ba8d8f1", "MicrosoftOptionROMUEFICA2023.der"},
}

// Microsoft2023 returns the embedded certificates, KEK's first; each call
// returns fresh copies, so a caller cannot change another's.
func Microsoft2023() []MS2023Cert {
	out := make([]MS2023Cert, len(ms2023))
	for i, c := range ms2023 {
		der, err := ms2023Files.ReadFile("ms2023_certs/" + c.file)
		if err != nil {
			panic("uefi: embedded certificate missing: " + c.file) // the build embeds them all
		}
		out[i] = MS2023Cert{Variable: c.variable, Subject: c.subject, SHA256: c.sha256, DER: der}
	}
	return out
}

// digest is a certificate's fingerprint constant as a Digest.
func (c MS2023Cert) digest() Digest {
	var d Digest
	if b, err := hex.DecodeString(c.SHA256); err == nil && len(b) == len(d) {
		copy(d[:], b)
	}
	return d
}
