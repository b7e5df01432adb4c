package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/internal/cloud"
	"github.com/vtpmctl/vtpmctl/internal/output"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// completionFlag ends the command line a completion script sends: the
// words before the cursor, and the word being completed when it starts
// with "-" (urfave/cli's protocol, which its zsh and fish scripts speak).
// Where that word is a whole flag that takes a value ("--os-cloud"),
// whether the cursor is after a space cannot be told, and its values are
// offered. The bash script sends the word whatever it is, and says so in
// completeWordEnv.
const completionFlag = "--generate-shell-completion"

// completeWordEnv set to 1 says the word before completionFlag is the
// one being completed, even empty or a whole flag.
const completeWordEnv = "VTPMCTL_COMPLETE_WORD"

// isCompletion says whether args (os.Args) ask for completions.
func isCompletion(args []string) bool {
	return len(args) > 1 && args[len(args)-1] == completionFlag
}

// candidate is one completion: a word and what it means ("" for none).
type candidate struct{ word, about string }

// writeCompletions answers a completion request: one "word:about" line a
// candidate, the about without markup. urfave/cli's own answer completed
// commands and flag names only, and a flag waiting for its value (a
// parse error there) got nothing.
func writeCompletions(w io.Writer, root *cli.Command, args []string) {
	words := args[1 : len(args)-1]
	for _, c := range completions(root, words, os.Getenv(completeWordEnv) == "1" && len(words) > 0) {
		if about := shortAbout(c.about); about == "" {
			fmt.Fprintln(w, c.word)
		} else {
			fmt.Fprintf(w, "%s:%s\n", c.word, about)
		}
	}
}

// shortAbout is a candidate's meaning on one line of a listing: its first
// sentence, at most 80 characters, without markup.
func shortAbout(s string) string {
	s = strings.ReplaceAll(s, "`", "")
	if m := sentenceEnd.FindStringIndex(s); m != nil {
		s = s[:m[0]+1]
	}
	if r := []rune(s); len(r) > 80 {
		s = strings.TrimRight(string(r[:79]), " ,;:") + "…"
	}
	return s
}

// shells are the completion command's subcommands (urfave/cli adds it
// when the root runs, after completions are answered).
var shells = []string{"bash", "zsh", "fish", "pwsh"}

// sentenceEnd ends a sentence (not "e.g. 30s").
var sentenceEnd = regexp.MustCompile(`\. [A-Z]`)

// completions are the candidates for the word after words (or for the
// last word: when hasCur, or when it starts with "-" and is not a whole
// flag that takes a value): a flag's values after a flag that takes one,
// flags after "-", else the command's subcommands. The shell keeps those
// that start with what was typed; none falls back to files.
func completions(root *cli.Command, words []string, hasCur bool) []candidate {
	line := words
	cur := ""
	if n := len(words); n > 0 && (hasCur || strings.HasPrefix(words[n-1], "-") && !wholeValueFlag(root, words)) {
		cur, words = words[n-1], words[:n-1]
	}
	chain := []*cli.Command{root}
	cmd := root
	var pending cli.Flag // a flag whose value is the next word
	var given []string   // flags on the line
	var inCompletion, argsOnly bool
	for _, w := range words {
		switch {
		case pending != nil:
			pending = nil
		case argsOnly:
		case w == "--":
			argsOnly = true
		case strings.HasPrefix(w, "-") && len(w) > 1:
			name, _, inline := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f := findFlag(chain, name); f != nil {
				given = append(given, f.Names()[0])
				if takesValue(f) && !inline {
					pending = f
				}
			}
		case cmd == root && w == "completion":
			inCompletion = true
		case inCompletion || w == "help" && len(cmd.Commands) > 0:
			// help A B: A B's commands, as A B's own
		default:
			if sub := cmd.Command(w); sub != nil {
				cmd = sub
				chain = append(chain, sub)
			}
		}
	}
	switch {
	case pending != nil:
		return flagValues(cmd, chain, pending, "", cur, line)
	case strings.HasPrefix(cur, "--") && strings.Contains(cur, "="):
		name, value, _ := strings.Cut(cur[2:], "=")
		if f := findFlag(chain, name); f != nil && takesValue(f) {
			return flagValues(cmd, chain, f, "--"+name+"=", value, line)
		}
		return nil
	case strings.HasPrefix(cur, "-"):
		return flagCandidates(chain, given, !strings.HasPrefix(cur, "--"))
	case argsOnly:
		return nil
	case inCompletion:
		var out []candidate
		for _, s := range shells {
			out = append(out, candidate{s, "print the " + s + " completion script"})
		}
		return out
	}
	var out []candidate
	for _, sub := range cmd.Commands {
		if !sub.Hidden {
			out = append(out, candidate{sub.Name, sub.Usage})
		}
	}
	if cmd == root {
		out = append(out, candidate{"completion", "print the shell completion script"})
	}
	if len(cmd.Commands) > 0 {
		out = append(out, candidate{"help", "a command's help: help COMMAND…"})
	}
	return out
}

// wholeValueFlag says whether words end with a whole flag that takes a
// value ("--os-cloud", "-f"), known to the command the words name.
func wholeValueFlag(root *cli.Command, words []string) bool {
	last := words[len(words)-1]
	if strings.Contains(last, "=") {
		return false
	}
	chain := []*cli.Command{root}
	for _, w := range words[:len(words)-1] {
		if sub := chain[len(chain)-1].Command(w); sub != nil {
			chain = append(chain, sub)
		}
	}
	name := strings.TrimLeft(last, "-")
	f := findFlag(chain, name)
	return f != nil && takesValue(f) && last == map[bool]string{true: "--", false: "-"}[len(name) > 1]+name
}

// findFlag is the flag name (long or short) names on the chain's
// commands, the innermost first.
func findFlag(chain []*cli.Command, name string) cli.Flag {
	for i := len(chain) - 1; i >= 0; i-- {
		for _, f := range chain[i].Flags {
			if slices.Contains(f.Names(), name) {
				return f
			}
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

func repeatable(f cli.Flag) bool {
	m, ok := f.(cli.DocGenerationMultiValueFlag)
	return ok && m.IsMultiValueFlag()
}

// flagCandidates are the visible flags of the chain not yet given (a
// repeatable one always), long names, and the short ones for "-x".
func flagCandidates(chain []*cli.Command, given []string, short bool) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for i := len(chain) - 1; i >= 0; i-- {
		for _, f := range chain[i].Flags {
			if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
				continue
			}
			names := f.Names()
			if seen[names[0]] || slices.Contains(given, names[0]) && !repeatable(f) {
				continue
			}
			seen[names[0]] = true
			about := ""
			if d, ok := f.(cli.DocGenerationFlag); ok {
				about = d.GetUsage()
			}
			for _, n := range names {
				switch {
				case len(n) > 1:
					out = append(out, candidate{"--" + n, about})
				case short:
					out = append(out, candidate{"-" + n, about})
				}
			}
		}
	}
	return out
}

// flagValues are the values f takes on cmd, each after prefix ("" or
// "--flag=") and, for a comma list (--status fail,w), after the values
// typed before cur's last comma: the ones a flag declares (formats, statuses, releases,
// modes, layouts, TPM versions and models), the clouds of clouds.yaml and
// the cloud's regions; none for a free value (a name, a file, a number),
// where the shell offers files.
func flagValues(cmd *cli.Command, chain []*cli.Command, f cli.Flag, prefix, cur string, line []string) []candidate {
	var words []string
	var about []string
	name := f.Names()[0]
	if g, ok := f.(*cli.GenericFlag); ok {
		if _, ok := g.Value.(releaseValue); ok {
			for _, r := range nova.Releases()[1:] { // Ussuri: no vTPM
				words = append(words, r.String())
				about = append(about, r.Long())
			}
			name = ""
		}
	}
	switch name {
	case "":
	case "format":
		fs := output.Formats
		if len(cmd.Commands) == 0 && cmd != chain[0] {
			fs = nil
			for _, f := range commandFormats(cmd) {
				fs = append(fs, string(f))
			}
		}
		words = fs
	case "column":
		words = declaredColumns(cmd)
	case "os-cloud":
		words = cloud.CloudNames()
	case "os-region-name":
		words = cloud.CloudRegions(cloudOnLine(line))
	case "status":
		if i := strings.LastIndexByte(cur, ','); i >= 0 {
			prefix += cur[:i+1]
		}
		for _, s := range result.Statuses {
			words = append(words, string(s))
		}
	case "fail-on":
		words = []string{string(result.Fail), string(result.Warn)}
	case "layout":
		words = hostcheck.Layouts
	case "tpm-version":
		words = nova.TPMVersions
	case "tpm-model":
		words = nova.TPMModels
	case "secret-security", "to":
		words = nova.SecretSecurities
	}
	out := make([]candidate, len(words))
	for i, w := range words {
		out[i] = candidate{word: prefix + w}
		if i < len(about) {
			out[i].about = about[i]
		}
	}
	return out
}

// valueFlags names the flags flagValues completes by name (a release
// flag is known by its value): TestEveryChoiceCompletes holds the list
// against the flags whose help lists their choices.
var valueFlags = []string{"format", "column", "os-cloud", "os-region-name", "status", "fail-on", "layout", "tpm-version", "tpm-model", "secret-security", "to"}

// columnsKey is where a command may declare its -c columns (Metadata);
// completion offers them.
const columnsKey = "vtpmctl.columns"

// declaredColumns are the columns cmd declared, none when it did not.
func declaredColumns(cmd *cli.Command) []string {
	cs, _ := cmd.Metadata[columnsKey].([]string)
	return cs
}

// cloudOnLine is the cloud --os-cloud names on the line being completed,
// else OS_CLOUD: completion does not parse the line.
func cloudOnLine(line []string) string {
	for i, a := range line {
		if v, ok := strings.CutPrefix(a, "--os-cloud="); ok {
			return v
		}
		if a == "--os-cloud" && i+1 < len(line) {
			return line[i+1]
		}
	}
	return os.Getenv("OS_CLOUD")
}

// bashCompletion is `vtpmctl completion bash`: plain bash, so it works
// without the bash-completion package (urfave/cli's called
// _get_comp_words_by_ref, which that package defines: without it every
// TAB printed "command not found"). It glues back the words bash splits
// at "=" and ":" (--os-cloud=prod, hw:tpm_model), runs the command
// itself (no eval of the line) with the word being completed whatever it
// is (completeWordEnv), keeps the candidates that start with the
// word, shows their meanings when bash lists them, and leaves files to
// bash (-o default) when there is none.
const bashCompletion = `# bash completion for vtpmctl: source <(vtpmctl completion bash)
_vtpmctl_complete() {
  local line=${COMP_LINE:0:COMP_POINT} pos=0 i w rest gap
  local -a words=()
  for ((i = 0; i <= COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    rest=${line:pos}
    gap=${rest%%[![:space:]]*}
    # a word bash split at a COMP_WORDBREAKS character, no space before it
    if ((i > 0 && ${#gap} == 0)) && [[ $w == [=:]* || ${words[${#words[@]}-1]} == *[=:] ]]; then
      words[${#words[@]}-1]+=$w
    else
      words+=("$w")
    fi
    pos=$((pos + ${#gap} + ${#w}))
  done
  local cur=${words[${#words[@]}-1]} raw=${COMP_WORDS[COMP_CWORD]}
  local prefix=${cur:0:${#cur}-${#raw}}
  local -a args=("${words[@]:1:${#words[@]}-2}" "$cur")
  local prog=${words[0]}
  [[ $prog == "~/"* ]] && prog=$HOME/${prog:2}
  local out
  out=$(VTPMCTL_COMPLETE_WORD=1 "$prog" "${args[@]}" --generate-shell-completion 2>/dev/null) || return 0
  local -a found=() about=()
  local l word
  while IFS= read -r l; do
    word=${l%%:*}
    [[ -n $word && $word == "$cur"* ]] || continue
    found+=("$word")
    if [[ $l == *:* ]]; then about+=("${l#*:}"); else about+=(""); fi
  done <<< "$out"
  COMPREPLY=()
  if [[ ${COMP_TYPE:-} == 63 && ${#found[@]} -gt 1 ]]; then
    local width=0
    for word in "${found[@]}"; do ((${#word} > width)) && width=${#word}; done
    for i in "${!found[@]}"; do
      if [[ -n ${about[i]} ]]; then
        COMPREPLY+=("$(printf '%-*s  -- %s' "$width" "${found[i]#"$prefix"}" "${about[i]}")")
      else
        COMPREPLY+=("${found[i]#"$prefix"}")
      fi
    done
    return 0
  fi
  for word in "${found[@]}"; do COMPREPLY+=("${word#"$prefix"}"); done
  return 0
}
complete -o bashdefault -o default -F _vtpmctl_complete vtpmctl
`
