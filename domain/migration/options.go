package migration

import "github.com/vtpmctl/vtpmctl/domain/advice"

// The options of the plan commands that the migration's reasons, remedies
// and not-checked reasons point to. The rules name them as types; the
// caller's advice.Words spell them (the CLI as its flags). A nil Words
// names none: the text then says what is missing instead.
const (
	OptionVTPMColumn     advice.Option = "vtpm_column"          // plan import: the inventory's vTPM column
	OptionMatch          advice.Option = "match"                // plan verify: ties a planned VM to a server
	OptionHostReports    advice.Option = "host_reports"         // plan verify: host check reports (DOMAIN-TPM)
	OptionNoSecrets      advice.Option = "no_secrets"           // plan verify: the SECRET check turned off
	OptionNoACLs         advice.Option = "no_acls"              // plan verify: the secrets' ACL reads turned off
	OptionServiceProject advice.Option = "nova_service_project" // plan verify: the project of deployment-mode secrets
)

// Options are every option above, for a caller to check it spells each.
var Options = []advice.Option{OptionVTPMColumn, OptionMatch, OptionHostReports, OptionNoSecrets, OptionNoACLs, OptionServiceProject}

// Spell is how words spell o, "" without words: the caller's message
// then names no option.
func Spell(words advice.Words, o advice.Option) string {
	if words == nil {
		return ""
	}
	return words.Option(o)
}
