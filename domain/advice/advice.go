// Package advice names what a finding may tell its reader to do with
// this tool, its options and its commands, as types: the rules say
// which option or command, the caller spells it (the CLI as its flags
// and command lines, a test as anything it likes). So no rule knows a
// flag, and renaming one changes no rule.
package advice

// Option is a setting the user can give a command.
type Option string

// The options findings point to.
const (
	Root          Option = "root"            // audit a host's tree mounted elsewhere
	NovaRoot      Option = "nova_root"       // the nova-compute container's tree
	LibvirtRoot   Option = "libvirt_root"    // the libvirtd container's tree
	Layout        Option = "layout"          // the deployment layout
	LibvirtURI    Option = "libvirt_uri"     // the libvirt to ask
	NovaConf      Option = "nova_conf"       // nova.conf
	NovaConfigDir Option = "nova_config_dir" // its conf.d directory
	CleanupPlan   Option = "cleanup_plan"    // the audit's reviewable delete script
	Drain         Option = "drain"           // a host's guests, each with how it leaves
	HostReports   Option = "host_reports"    // the hosts' own host check reports, saved
)

// Options are every Option, for a caller to check it spells each.
var Options = []Option{Root, NovaRoot, LibvirtRoot, Layout, LibvirtURI, NovaConf, NovaConfigDir, CleanupPlan, Drain, HostReports}

// Command is one of the tool's commands.
type Command string

// The commands findings point to.
const (
	HostCheck      Command = "host check"
	HostsAudit     Command = "hosts audit"
	SecretsAudit   Command = "secrets audit"
	SecretsProtect Command = "secrets protect"
	PlanImport     Command = "plan import"
	PlanDiff       Command = "plan diff"
	PlanApply      Command = "plan apply"
	// SecureBootUpdate adds the 2023 certificates to a stopped guest's
	// NVRAM on its compute host.
	SecureBootUpdate Command = "host secure-boot update"
)

// Commands are every Command, for a caller to check it has each.
var Commands = []Command{HostCheck, HostsAudit, SecretsAudit, SecretsProtect, PlanImport, PlanDiff, PlanApply, SecureBootUpdate}

// Words spells options and commands for a reader.
type Words interface {
	Option(Option) string
	Command(Command) string
}

// Plain names options and commands as themselves ("root", "host
// check"): the words of a caller that has none of its own.
type Plain struct{}

func (Plain) Option(o Option) string   { return string(o) }
func (Plain) Command(c Command) string { return string(c) }

// Or is w, or Plain when w is nil: a request built without words still
// reads.
func Or(w Words) Words {
	if w == nil {
		return Plain{}
	}
	return w
}
