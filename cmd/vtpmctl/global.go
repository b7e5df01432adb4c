package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
)

// IOStreams are injected so every command runs without a terminal in tests.
type IOStreams struct {
	In       io.Reader
	Out, Err io.Writer
}

// globalOptions are the flags every command shares.
type globalOptions struct {
	Cloud    cloud.Options
	Output   output.Options
	DebugLog bool

	// cmdLine: the flags whose value was given on the command line, not
	// by the environment (envSource, onSet): a command vtpmctl suggests
	// repeats only those, the environment is still there when it runs.
	cmdLine, fromEnvNext map[string]bool

	session *cloud.Session
}

// envSource is cli.EnvVar that tells g the flag's next value is the
// environment's. IsSet does not tell the two apart, and a persistent flag
// read from the environment by the root can be set again on a
// subcommand's command line.
type envSource struct {
	envValueSource
	g    *globalOptions
	flag string
}

type envValueSource interface {
	cli.ValueSource
	cli.EnvValueSource
}

func (s envSource) Lookup() (string, bool) {
	v, ok := s.envValueSource.Lookup()
	if ok && v != "" { // urfave/cli sets the flag from it right after
		if s.g.fromEnvNext == nil {
			s.g.fromEnvNext = map[string]bool{}
		}
		s.g.fromEnvNext[s.flag] = true
	}
	return v, ok
}

// envVar is the flag's environment variable, recorded (envSource).
func (g *globalOptions) envVar(flag, key string) cli.ValueSourceChain {
	return cli.NewValueSourceChain(envSource{envValueSource: cli.EnvVar(key).(envValueSource), g: g, flag: flag})
}

// onSet is the flag's Validator, called after every value set: from the
// command line unless envSource just gave it.
func onSet[T any](g *globalOptions, flag string) func(T) error {
	return func(T) error {
		if g.cmdLine == nil {
			g.cmdLine = map[string]bool{}
		}
		g.cmdLine[flag] = !g.fromEnvNext[flag]
		delete(g.fromEnvNext, flag)
		return nil
	}
}

// connect opens the cloud session once; only commands that need a cloud
// call it.
func (g *globalOptions) connect(ctx context.Context) (*cloud.Session, error) {
	if g.session != nil {
		return g.session, nil
	}
	run := runOf(ctx)
	run.note("connecting to the cloud")
	s, err := cloud.Connect(ctx, g.Cloud)
	if err != nil {
		return nil, err
	}
	run.note("")
	if sessionOpened != nil {
		sessionOpened(s)
	}
	g.session = s
	return s, nil
}

// version and commit are set by `make build`/`make dist` (-ldflags -X);
// a plain go build falls back to the VCS stamp Go records.
var version, commit = "dev", ""

// versionString is what --version prints.
func versionString() string {
	c := commit
	if c == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, st := range bi.Settings {
				if st.Key == "vcs.revision" && len(st.Value) >= 12 {
					c = st.Value[:12]
				}
			}
		}
	}
	if c == "" {
		c = "unknown"
	}
	return fmt.Sprintf("%s (commit %s, %s, %s/%s)", version, c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// sessionOpened, when set (tests), sees every session a command opens.
var sessionOpened func(*cloud.Session)

// groupAction runs for a command group (image, flavor) named without a
// subcommand or with an unknown one.
func groupAction(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() > 0 {
		return unknownCommand(cmd, cmd.Args().First())
	}
	return cli.ShowSubcommandHelp(cmd)
}

func globalFlags(g *globalOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "os-cloud", Usage: "cloud `NAME` in clouds.yaml", Sources: cli.EnvVars("OS_CLOUD"), Destination: &g.Cloud.Cloud},
		&cli.StringFlag{Name: "os-region-name", Usage: "`REGION` of the service endpoints", Sources: cli.EnvVars("OS_REGION_NAME"), Destination: &g.Cloud.Region},
		&cli.StringFlag{Name: "os-cacert", Usage: "CA bundle `FILE` to verify TLS with", Sources: g.envVar("os-cacert", "OS_CACERT"), Destination: &g.Cloud.CACert, Validator: onSet[string](g, "os-cacert")},
		&cli.BoolFlag{Name: "insecure", Usage: "do not verify TLS certificates (never in production)", Sources: g.envVar("insecure", "OS_INSECURE"), Destination: &g.Cloud.Insecure, Validator: onSet[bool](g, "insecure")},
		&secondsFlag{Name: "timeout", Usage: "per-request `TIMEOUT`: seconds (300, as openstack takes it) or a duration (30s, 2m)", Value: 60 * time.Second, Sources: g.envVar("timeout", "VTPMCTL_TIMEOUT"), Destination: &g.Cloud.Timeout, Validator: onSet[time.Duration](g, "timeout")},
		&cli.BoolFlag{Name: "debug", Usage: "log every API request to stderr (tokens, passwords and secrets redacted)", Sources: cli.EnvVars("VTPMCTL_DEBUG"), Destination: &g.DebugLog},
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "output `FORMAT`: " + strings.Join(output.Formats, ", ") + " (each command's --help lists those it prints)", Value: "table", Destination: &g.Output.Format},
		&cli.StringSliceFlag{Name: "column", Aliases: []string{"c"}, Usage: "show only `COLUMN` (repeatable)", Destination: &g.Output.Columns},
		&cli.BoolFlag{Name: "long", Usage: "show every column in table, value and csv (default: the table's own)", Destination: &g.Output.Long},
		&cli.StringSliceFlag{Name: "sort-column", Usage: "order table, value and csv rows by `COLUMN` (repeatable, the first the most significant; default: worst result first)", Destination: &g.Output.SortColumns},
		&cli.BoolFlag{Name: "sort-ascending", Usage: "sort the rows in ascending order (the default)",
			Action: func(ctx context.Context, cmd *cli.Command, v bool) error { return sortOrder(cmd) }},
		&cli.BoolFlag{Name: "sort-descending", Usage: "sort the rows in descending order (without --sort-column: best result first)", Destination: &g.Output.SortDescending,
			Action: func(ctx context.Context, cmd *cli.Command, v bool) error { return sortOrder(cmd) }},
		&cli.BoolFlag{Name: "fit-width", Usage: "fit tables to the terminal's width (else $COLUMNS), wrapping free-text cells at spaces; IDs, names and words are never cut", Sources: cli.EnvVars("VTPMCTL_FIT_WIDTH", "CLIFF_FIT_WIDTH"), Destination: &g.Output.FitWidth},
		&cli.IntFlag{Name: "max-width", Usage: "fit tables to `N` columns, wrapping free-text cells at spaces; a line is wider only where an ID, a name or a word is (0: only with --fit-width; -1: never fit)", Sources: cli.EnvVars("VTPMCTL_MAX_WIDTH"), Destination: &g.Output.MaxWidth,
			Validator: func(n int) error {
				if n < -1 {
					return errors.New("give a width, 0 (fit only with --fit-width) or -1 (never fit)")
				}
				return nil
			}},
	}
}

// sortOrder refuses --sort-ascending with --sort-descending, as
// openstack's client does.
func sortOrder(cmd *cli.Command) error {
	if cmd.Bool("sort-ascending") && cmd.Bool("sort-descending") {
		return usagef("--sort-ascending and --sort-descending: give one")
	}
	return nil
}

// secondsFlag is a duration flag that also takes a plain number as
// seconds: --timeout 300, as the openstack client's --timeout, besides
// Go's 30s or 2m (cli.DurationFlag refuses "300": missing unit).
type secondsFlag = cli.FlagBase[time.Duration, cli.NoConfig, secondsValue]

// secondsValue is secondsFlag's value (cli.ValueCreator and cli.Value).
type secondsValue time.Duration

func (secondsValue) Create(val time.Duration, p *time.Duration, _ cli.NoConfig) cli.Value {
	*p = val
	return (*secondsValue)(p)
}

func (secondsValue) ToString(d time.Duration) string { return d.String() }

func (d *secondsValue) Set(s string) error {
	v, err := parseSeconds(s)
	if err != nil {
		return err
	}
	*d = secondsValue(v)
	return nil
}

func (d *secondsValue) Get() any       { return time.Duration(*d) }
func (d *secondsValue) String() string { return time.Duration(*d).String() }

// parseSeconds reads a plain number as seconds ("300", "2.5"), anything
// else as a Go duration ("30s", "2m", "1m30s").
func parseSeconds(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(t, 64); err == nil && !math.IsInf(n, 0) && !math.IsNaN(n) {
		if math.Abs(n) > math.MaxInt64/float64(time.Second) {
			return 0, errors.New("too many seconds")
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, errors.New("give seconds (300) or a duration (30s, 2m)")
	}
	return d, nil
}

// commandHelp assembles a command's description with its examples and the
// shared exit status section, so no command can forget either.
func commandHelp(about string, examples []string, exit string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(about))
	b.WriteString("\n\nEXAMPLES:\n")
	for _, e := range examples {
		b.WriteString("   " + e + "\n")
	}
	b.WriteString("\n")
	if exit == "" {
		exit = exitStatusHelp
	}
	b.WriteString(withInterruptHelp(exit))
	return b.String()
}

// withInterruptHelp adds the interrupt's statuses, the same for every
// command (interrupt.go), to an EXIT STATUS section that lists statuses.
func withInterruptHelp(exit string) string {
	if !strings.Contains(exit, "\n   0  ") || strings.Contains(exit, "\n   130  ") {
		return exit
	}
	return strings.TrimRight(exit, "\n") + "\n" + exitInterruptHelp
}

// noArgs refuses stray positional arguments, which usually are a flag
// value gone astray.
func noArgs(cmd *cli.Command) error {
	if cmd.Args().Len() > 0 {
		return usagef("%s: unexpected argument %q (see %s --help)", cmd.FullName(), cmd.Args().First(), cmd.FullName())
	}
	return nil
}

// junitFlag is the one --junit: every command that writes JUnit XML
// (through writeJUnit and fileout) takes it with the same words. "-" is
// stdout, refused while the command's own result goes there too: two
// documents in one stream parse as neither.
func junitFlag(dst *string) cli.Flag {
	return &cli.StringFlag{Name: "junit", Usage: "also write JUnit XML to `FILE` (- for stdout when the result goes to a file; a device such as /dev/null is written, never replaced)", Destination: dst,
		Action: func(ctx context.Context, cmd *cli.Command, v string) error {
			if v == "-" && resultToStdout(cmd) {
				return usagef("--junit -: the %s result goes to stdout too; give --junit a FILE", strings.TrimPrefix(cmd.FullName(), cmd.Root().Name+" "))
			}
			return nil
		}}
}

// resultToStdout says whether cmd writes its result to stdout: unless its
// --output names a file.
func resultToStdout(cmd *cli.Command) bool {
	for _, f := range cmd.Flags {
		if f.Names()[0] == "output" {
			out := cmd.String("output")
			return out == "" || out == "-"
		}
	}
	return true
}

// outputFlag is the one flag that sends a command's result to a file:
// --output, -o, as plan import's (report said --out: hiddenAlias keeps
// such an old spelling working, unlisted).
func outputFlag(dst *string, usage string) cli.Flag {
	return &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: usage, Destination: dst}
}

// hiddenAlias is an old spelling of a string flag, kept hidden for the
// scripts that call it: help and "did you mean" name only the new one.
func hiddenAlias(name string, dst *string) cli.Flag {
	return &cli.StringFlag{Name: name, Hidden: true, Destination: dst}
}

// exitInterruptHelp are the statuses of a run a signal stopped.
const exitInterruptHelp = `   130  interrupted by SIGINT (Ctrl-C): nothing published (no file written or
        replaced, no result printed); one line says how far the run got and,
        for a write, which writes it made; a second signal stops at once
   143  interrupted by SIGTERM: as 130`

const exitStatusHelp = `EXIT STATUS:
   0  success
   1  a check failed, or Nova would refuse, or an operation did not complete
   2  usage or configuration error (bad flag or value, malformed input, no or unknown cloud)`
