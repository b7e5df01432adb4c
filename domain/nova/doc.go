// Package nova models how Nova turns image properties and flavor extra
// specs into an emulated TPM, release by release, with Nova's own error
// texts: the release and its resolution, the request, the decision and
// its refusals, changes and the Windows-ready profile. It makes no API
// call: packages compute and glance do, with these rules.
package nova
