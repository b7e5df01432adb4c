package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// Main runs vtpmctl and returns the exit status. A run whose context a
// signal ended (interrupt.go) and that did not finish says so in one
// line and exits 128 + the signal.
func Main(ctx context.Context, args []string, streams *IOStreams) int {
	if runOf(ctx) == nil {
		ctx = withRun(ctx, &runState{})
	}
	// stderr as given: the root's Before wraps streams.Err in a writer
	// that goes quiet at a signal, and the line after it is this one's
	stderr := output.TerminalWriter(streams.Err)
	g := &globalOptions{}
	root := newRootCommand(g, streams)
	if isCompletion(args) {
		writeCompletions(streams.Out, root, args)
		return 0
	}
	err := root.Run(ctx, args)
	if err == nil && notFound(root) {
		return exitUsage // the line is said (commandNotFound)
	}
	// A reportedError is a command that finished: it published its
	// result before it said its status, so the signal came after.
	var rep *reportedError
	if in, ok := interruptOf(ctx); ok && err != nil && !errors.As(err, &rep) {
		command, _ := runOf(ctx).now()
		if isTerminal(output.Raw(stderr)) {
			fmt.Fprint(output.Raw(stderr), "\r\033[K") // a progress line drawn after the signal
		}
		err = &interruptedError{in: in, command: command, err: err}
	}
	return exitCode(err, stderr)
}

func newRootCommand(g *globalOptions, streams *IOStreams) *cli.Command {
	var fg *formatGuard // set below, used when urfave/cli adds completion
	root := &cli.Command{
		Name:    "vtpmctl",
		Usage:   "virtual TPM for Windows and other UEFI guests on OpenStack",
		Version: versionString(),
		Description: `vtpmctl answers, before anything boots, whether Nova gives a guest a vTPM,
which version and model, which host traits it needs and what the guest can no
longer do; and it audits the hosts and Barbican secrets behind vTPM guests.

Cloud access follows the openstack client: --os-cloud or OS_CLOUD names an
entry of clouds.yaml (OS_CLIENT_CONFIG_FILE, ./clouds.yaml,
~/.config/openstack/clouds.yaml, /etc/openstack/clouds.yaml; secure.yaml is
merged), or the OS_* variables are used. TLS is verified unless --insecure.

EXAMPLES:
   vtpmctl check --image-property hw_tpm_version=2.0 --flavor-spec hw:tpm_model=tpm-crb --nova-release zed
   vtpmctl --os-cloud mycloud check --image win11 --flavor m1.large -f json

` + withInterruptHelp(exitStatusHelp),
		Writer:                streams.Out,
		ErrWriter:             streams.Err,
		Reader:                streams.In,
		EnableShellCompletion: true,
		ConfigureShellCompletionCommand: func(c *cli.Command) {
			c.Hidden = false
			c.Usage = "print the shell completion script: vtpmctl completion bash|zsh|fish"
			c.Description = commandHelp(`Prints the completion script for a shell; the .deb and .rpm install them.
Commands, flags and flag values complete: --os-cloud from clouds.yaml (and
--os-region-name from that cloud), -f with the command's formats, --status,
releases, modes, layouts, TPM versions and models. The bash script needs no
bash-completion package.`, []string{
				"source <(vtpmctl completion bash)",
				"vtpmctl completion zsh > \"${fpath[1]}/_vtpmctl\"",
				"vtpmctl completion fish > ~/.config/fish/completions/vtpmctl.fish",
			}, "EXIT STATUS:\n   0  printed\n   2  unknown shell")
			c.Action = groupAction
			if bash := c.Command("bash"); bash != nil {
				bash.Action = func(context.Context, *cli.Command) error {
					_, err := io.WriteString(streams.Out, bashCompletion)
					return err
				}
			}
			setUsageHandlers(c)
			fg.wrapTree(c, c.Name)
			for _, n := range commandTree(c) {
				n.cmd.CustomHelpTemplate = helpTemplate(c.Root(), n.cmd)
			}
		},
		Flags: globalFlags(g),
		Before: func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			if err := g.Output.Validate(); err != nil {
				return ctx, &usageError{msg: fmt.Sprintf("-f %q: not an output format (%s)", g.Output.Format, choiceHint(strings.ToLower(g.Output.Format), output.Formats)), err: err}
			}
			// Whether the invoked command prints this format is its own
			// declaration's business (guardFormats).
			g.Output.Explicit = cmd.IsSet("format")
			if g.Cloud.Timeout <= 0 {
				return ctx, usagef("--timeout %s: must be positive (a request without a deadline can hang for ever)", g.Cloud.Timeout)
			}
			// Names from the cloud and from files reach the terminal only
			// through these; json and yaml are exact (and escaped by their
			// encoders).
			streams.Err = output.TerminalWriter(streams.Err)
			if f := g.Output.Format; f != "json" && f != "yaml" {
				streams.Out = output.TerminalWriter(streams.Out)
			}
			if g.DebugLog {
				g.Cloud.Debug = streams.Err // what --debug asked for, after a signal too
			}
			// A run a signal stopped says one line (Main's): what its
			// cancelled reads would warn of is no news. Every result it
			// publishes asks the run's context first (output.Write,
			// fileout.Write).
			streams.Err = &quietWriter{ctx: ctx, w: streams.Err}
			g.Output.Context = ctx
			g.Cloud.Version = version // the User-Agent's vtpmctl/<version>
			return ctx, nil
		},
		ExitErrHandler:  func(context.Context, *cli.Command, error) {}, // exitCode decides
		OnUsageError:    onUsageError,
		CommandNotFound: commandNotFound,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return unknownCommand(cmd, cmd.Args().First())
			}
			return cli.ShowRootCommandHelp(cmd)
		},
		Commands: []*cli.Command{
			newCheckCommand(g, streams),
			newImageCommand(g, streams),
			newVolumeCommand(g, streams),
			newFlavorCommand(g, streams),
			newHostCommand(g, streams),
			newHostsCommand(g, streams),
			newSecretsCommand(g, streams),
			newPlanCommand(g, streams),
			newUpgradeCommand(g, streams),
			newReportCommand(g, streams),
			newManCommand(streams),
		},
	}
	for _, c := range root.Commands {
		setUsageHandlers(c)
	}
	recordCommands(root)
	fg = guardFormats(root, g)
	setHelpTemplates(root)
	return root
}

// recordCommands makes every command that acts tell the run its name
// (runState, for an interruption's line).
func recordCommands(root *cli.Command) {
	for _, n := range commandTree(root) {
		if len(n.cmd.Commands) > 0 || n.cmd.Action == nil {
			continue
		}
		action, path := n.cmd.Action, n.path
		n.cmd.Action = func(ctx context.Context, cmd *cli.Command) error {
			runOf(ctx).start(path)
			return action(ctx, cmd)
		}
	}
}

// setUsageHandlers gives every command the one wording of flag and
// command mistakes (suggest.go).
func setUsageHandlers(c *cli.Command) {
	c.OnUsageError = onUsageError
	c.CommandNotFound = commandNotFound
	for _, sub := range c.Commands {
		setUsageHandlers(sub)
	}
}
