package reportpage

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/advice"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
	"github.com/vtpmctl/vtpmctl/internal/infile"
	"github.com/vtpmctl/vtpmctl/internal/redact"
	"github.com/vtpmctl/vtpmctl/internal/result"
)

// Inputs are every result the page can show; any may be missing. They
// are the commands' own typed results, from a run or from their JSON.
type Inputs struct {
	Cloud     string
	Generated time.Time
	Hosts     []hostcheck.Report // `host check -f json`
	Fleet     *fleet.Result
	Secrets   *vtpmsecret.Result
	Upgrade   *fleet.UpgradeResult
	// Resolved is how Build settled the release (nothing for saved results):
	// the command prints its warning.
	Resolved nova.ResolvedRelease
}

// Load reads a saved JSON result: a regular file only, under the size cap
// (a FIFO would hang the page, /dev/zero would fill memory).
func (in *Inputs) Load(path string) error {
	data, err := infile.ReadFile(path, 0)
	if err != nil {
		return err
	}
	return in.LoadBytes(path, data)
}

// LoadBytes reads one command's JSON result, filed by its "schema"; path
// only names it in errors.
func (in *Inputs) LoadBytes(path string, data []byte) error {
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("%s: not a vtpmctl JSON result: %v", path, err)
	}
	dec := func(v any) error {
		if err := json.Unmarshal(data, v); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		return nil
	}
	switch head.Schema {
	case hostcheck.ReportSchema:
		var r hostcheck.Report
		if err := dec(&r); err != nil {
			return err
		}
		r.Finish()
		in.Hosts = append(in.Hosts, r)
	case fleet.Schema:
		var f fleet.Result
		if err := dec(&f); err != nil {
			return err
		}
		in.Fleet = &f
	case vtpmsecret.ResultSchema:
		var r vtpmsecret.Result
		if err := dec(&r); err != nil {
			return err
		}
		in.Secrets = &r
	case fleet.UpgradeSchema:
		var u fleet.UpgradeResult
		if err := dec(&u); err != nil {
			return err
		}
		in.Upgrade = &u
	case "":
		return result.CheckSchema(path, "", "one of "+strings.Join([]string{hostcheck.ReportSchema, fleet.Schema, vtpmsecret.ResultSchema, fleet.UpgradeSchema}, ", "))
	default:
		for _, known := range []string{hostcheck.ReportSchema, fleet.Schema, vtpmsecret.ResultSchema, fleet.UpgradeSchema} {
			if kind, _, _ := strings.Cut(known, "/"); strings.HasPrefix(head.Schema, kind+"/") {
				// another version of a document the page reads
				return result.CheckSchema(path, head.Schema, known)
			}
		}
		return fmt.Errorf("%s: schema %q is not the JSON of host check, hosts audit, secrets audit or upgrade check of this vtpmctl", path, head.Schema)
	}
	return nil
}

// Area is one summary tile. Its verdict is the worst status among its
// findings (pass only when none is fail or warn); Findings counts them.
type Area struct {
	Name, Verdict, Detail string
	OK                    bool
	// Of is the findings' area this tile sums up ("" none: the tile
	// decides its verdict itself); Findings says how many, by status.
	Of, Findings string
}

// Finding is one finding of the run; identical ones share a row (Group).
type Finding struct {
	Area, Subject, Check string
	Status               result.Status
	Message, Remedy      string
	// What the subject is, counted on the first screen: host, guest,
	// secret, project.
	What string
	// Short names the subject where a row's summary lists a few ("" the
	// Subject itself).
	Short string
}

// Bar is one bar of a chart.
type Bar struct {
	Label  string
	Value  int
	Width  int // pixels
	Y      int
	Colour string
}

type page struct {
	Inputs
	Areas    []Area
	Findings []Finding // every finding of the run
	// Groups: the findings, identical ones together, worst first;
	// Attention: the first screen's, those that are not a pass.
	Groups    []Group
	Attention []Attention
	More      int // groups not a pass beyond Attention's
	// NeedsHostReports says what the sections that read the hosts' own
	// check reports need, when none was given (they are not left out
	// silently).
	NeedsHostReports string
	HostBars         []Bar
	GuestBars        []Bar
	Failing          int
	// Risks: the vTPM guests by BitLocker-recovery risk, worst first.
	Risks []RiskRow
	// CertsHosts: the same guests counted per host by the 2023 Secure
	// Boot certificates and remedy; CertsHelp says what each remedy is.
	CertsHosts []CertsHost
	CertsHelp  string
	// Shown, Remedies, View: what the view lists (view.go).
	Shown    []row
	Listed   int // findings in Shown's rows
	Remedies []Remedy
	View     View
	words    advice.Words // the remedies' commands and options
}

// RenderView writes the page, scrubbed: a finding may carry a server's
// error text. It scrubs its own output because only here is the format
// known: the caller's pass (fileout) writes the plain redact.Mark, a tag
// the browser hides; the escaped mark shows, and leaves that pass nothing.
// words spell the commands and options a remedy points to (nil: plain).
func RenderView(w io.Writer, in Inputs, v View, words advice.Words) error {
	p := page{Inputs: in, words: advice.Or(words)}
	p.build()
	p.apply(v)
	rw := redact.NewMarkWriter(w, redact.EscapedMark)
	if err := tmpl.Execute(rw, p); err != nil {
		return err
	}
	return rw.Flush()
}

func (p *page) add(area, subject string, c hostcheck.Check) {
	if c.Status == hostcheck.Pass {
		return
	}
	p.Findings = append(p.Findings, Finding{area, subject, c.ID, c.Status, c.Message, c.Remedy, "host", ""})
}

func (p *page) build() {
	if len(p.Hosts) > 0 {
		fail := 0
		for _, r := range p.Hosts {
			if r.Failed() {
				fail++
			}
			for _, c := range r.Checks {
				p.add("Compute hosts", r.Host, c)
			}
		}
		p.Areas = append(p.Areas, Area{Name: "Compute hosts", Detail: fmt.Sprintf("%d host(s) checked, %d failing", len(p.Hosts), fail), OK: fail == 0, Of: "Compute hosts"})
	}
	if f := p.Fleet; f != nil {
		s := f.Summary
		p.Areas = append(p.Areas, Area{Name: "Fleet and scheduling", Detail: fmt.Sprintf("%d host(s), %d up and enabled; %d take TPM 2.0, %d CRB, %d host mode; %d guest(s) cannot be evacuated",
			s.Hosts, s.Usable, s.TPM20, s.CRB, s.HostMode, s.AtRisk), OK: s.Failing == 0, Of: "Fleet"})
		for _, r := range f.Hosts {
			for _, c := range r.Checks {
				p.add("Fleet", r.Host, c)
			}
		}
		none := s.Hosts - max(s.TPM20, s.CRB)
		p.HostBars = bars([]string{"TPM 2.0 (TIS)", "TPM 2.0 (CRB)", "host mode", "no vTPM"}, []int{s.TPM20, s.CRB, s.HostMode, none}, []string{"#2b7a3d", "#2b7a3d", "#1f5f99", "#999"})
	}
	if sec := p.Secrets; sec != nil {
		s := sec.Summary
		ok := s.Failed == 0 && s.NotAuditable == 0
		p.Areas = append(p.Areas, Area{Name: "vTPM secrets (Barbican)", Detail: fmt.Sprintf("%d guest(s), %d secret(s): %d ok, %d failed, %d orphan(s), %d project(s) not auditable",
			s.Guests, s.Secrets, s.OK, s.Failed, s.Orphans, s.NotAuditable), OK: ok, Of: "Secrets"})
		atRisk := 0
		if p.Fleet != nil {
			atRisk = p.Fleet.Summary.AtRisk
		}
		p.GuestBars = bars([]string{"secret ok", "secret failed", "not auditable", "cannot be evacuated"}, []int{s.OK, s.Failed, s.Guests - s.OK - s.Failed, atRisk}, []string{"#2b7a3d", "#b3261e", "#999", "#c77700"})
		projectNames := map[string]string{}
		for _, g := range sec.Guests {
			if g.ProjectName != "" {
				projectNames[g.ProjectID] = g.ProjectName
			}
			for _, f := range g.Findings {
				if f.Status != result.Pass {
					p.Findings = append(p.Findings, Finding{"Secrets", g.Name + " (" + g.ServerID + ")", string(f.Check), f.Status, f.Message, f.Remedy, "guest", g.Name})
				}
			}
		}
		projects := make([]string, 0, len(sec.NotAuditable))
		for pr := range sec.NotAuditable {
			projects = append(projects, pr)
		}
		sort.Strings(projects)
		for _, pr := range projects {
			p.Findings = append(p.Findings, Finding{"Secrets", "project " + named(projectNames[pr], pr), string(vtpmsecret.CheckProjectAuditable), "fail",
				"not auditable: " + sec.NotAuditable[pr].String(), "give the auditor a role that may list secrets there", "project", ""})
		}
		// An orphan's remedy is the audit's reviewable delete script.
		cleanup := p.words.Command(advice.SecretsAudit) + " " + p.words.Option(advice.CleanupPlan)
		for _, o := range sec.Orphans {
			p.Findings = append(p.Findings, Finding{"Secrets", orphanSubject(o, projectNames), "ORPHAN", "warn", orphanMessage(o.Kind), cleanup, "secret", o.ID})
		}
	}
	if u := p.Upgrade; u != nil {
		ok := len(u.Stranded) == 0
		detail := fmt.Sprintf("%d host(s) stop receiving vTPM guests, %d guest(s) stranded", len(u.UpgradeNow), len(u.Stranded))
		var fixed []string
		for _, k := range u.KnownBugs {
			if k.FixedByUpgrade {
				fixed = append(fixed, string(k.ID))
			}
		}
		if len(fixed) > 0 {
			detail += "; fixes known vTPM/UEFI bug(s) " + strings.Join(fixed, ", ")
		}
		p.Areas = append(p.Areas, Area{Name: "Upgrade to " + u.To, Detail: detail, OK: ok, Of: "Upgrade"})
		for _, s := range u.Stranded {
			p.Findings = append(p.Findings, Finding{"Upgrade", s.Name + " (" + s.ServerID + ") on " + s.Host, "STRANDED", "fail",
				"stranded by the upgrade to " + u.To + ": no other host reports " + strings.Join(s.Requires, " "), strings.Join(u.Advice, "; "), "guest", s.Name})
		}
	}
	if p.Risks = bitLockerRows(p.Hosts, p.Fleet); len(p.Risks) > 0 {
		p.Areas = append(p.Areas, bitLockerArea(p.Risks))
		p.CertsHosts, p.CertsHelp = certsHosts(p.Risks), certsRemedyText(p.words)
		p.Areas = append(p.Areas, certsArea(p.CertsHosts))
	} else if p.Fleet != nil && len(p.Hosts) == 0 && p.Fleet.Summary.BitLocker == nil {
		// The fleet's guests are known, their hosts' own view of them is
		// not: say what these sections need rather than leave them out.
		p.NeedsHostReports = fmt.Sprintf("This needs the compute hosts' own check reports, and this report was made without them: run %s on each host and give its JSON reports (%s DIR, or as inputs).",
			p.words.Command(advice.HostCheck), p.words.Option(advice.HostReports))
		for _, name := range []string{"BitLocker recovery risk", "Secure Boot 2023 certificates"} {
			p.Areas = append(p.Areas, Area{Name: name, Verdict: "unknown", Detail: "not assessed: needs the hosts' check reports (" + p.words.Option(advice.HostReports) + ")"})
		}
	}
	for _, f := range p.Findings {
		if f.Status == result.Fail {
			p.Failing++
		}
	}
	p.Groups = group(p.Findings)
	for i := range p.Areas {
		p.Areas[i].judge(p.Groups)
	}
}

// judge sets a findings tile's verdict: the worst status among its
// area's findings (pass only when none is fail or warn), fail also when
// the tile's own counts fail it. Other tiles keep their own.
func (a *Area) judge(gs []Group) {
	if a.Of == "" {
		if a.Verdict == "" {
			a.Verdict = verdict(a.OK)
		}
		return
	}
	worst := result.Pass
	if !a.OK {
		worst = result.Fail
	}
	n := map[result.Status]int{}
	for _, g := range gs {
		if g.Area == a.Of {
			n[g.Status] += g.Count()
			worst = result.Worst(worst, g.Status)
		}
	}
	switch worst {
	case result.Fail, result.Warn:
		a.Verdict, a.OK = string(worst), false
	default:
		a.Verdict = "pass"
	}
	var parts []string
	for _, s := range []result.Status{result.Fail, result.Warn} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	a.Findings = strings.Join(parts, ", ")
}

func verdict(ok bool) string {
	if ok {
		return "pass"
	}
	return "fail"
}

// named is a name with its ID, or the ID where the name is unknown.
func named(name, id string) string {
	if name == "" || name == id {
		return id
	}
	return name + " (" + id + ")"
}

// orphanSubject names an orphan secret by what is known of it: its
// project's and creator's names, not IDs alone.
func orphanSubject(o vtpmsecret.Orphan, projects map[string]string) string {
	project := o.ProjectName
	if project == "" {
		project = projects[o.ProjectID]
	}
	s := "secret " + o.ID + " of project " + named(project, o.ProjectID) + ", created by " + named(o.CreatorName, o.CreatorID) + ", " + o.AgeText() + " old"
	if o.Kind == vtpmsecret.OrphanGone {
		return s + ", instance " + o.InstanceID
	}
	return s + ": " + o.Reason
}

// orphanMessage is what orphans of one kind share (the first screen
// names them by what comes before the colon).
func orphanMessage(k vtpmsecret.OrphanKind) string {
	switch k {
	case vtpmsecret.OrphanGone:
		return "orphaned, its instance gone: in no project's server list"
	case vtpmsecret.OrphanDuplicate:
		return "one of several secrets of its instance: Nova uses only the one in the domain's <encryption secret>"
	case vtpmsecret.OrphanLive:
		return "its server exists but asks for no vTPM: look before deleting"
	case vtpmsecret.OrphanUndetermined:
		return "its instance is not among the servers read: that read cannot prove it gone"
	}
	return "orphan (" + string(k) + ")"
}

func bars(labels []string, values []int, colours []string) []Bar {
	top := 1
	for _, v := range values {
		top = max(top, v)
	}
	out := make([]Bar, len(labels))
	for i := range labels {
		out[i] = Bar{Label: labels[i], Value: values[i], Width: 4 + values[i]*300/top, Y: i * 28, Colour: colours[i]}
	}
	return out
}

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"date":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"whole": wholeIDs,
}).Parse(page_html))

// uuidText is a UUID in text, as Nova and Barbican write them.
var uuidText = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// wholeIDs is s escaped for HTML, each UUID in it kept on one line: a
// browser breaks a line after a hyphen, and an ID split over two lines is
// no ID to copy. Only hex digits and hyphens are wrapped, after escaping,
// so the markup added is the span alone.
func wholeIDs(s string) template.HTML {
	return template.HTML(uuidText.ReplaceAllString(template.HTMLEscapeString(s), `<span class="id">$0</span>`))
}
