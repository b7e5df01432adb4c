// Command vtpmctl gives UEFI guests on OpenStack a working, auditable
// virtual TPM. This package only wires flags to the domain packages.
package main
