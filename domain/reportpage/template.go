package reportpage

// page_html is the whole page: inline CSS and SVG, nothing fetched.
const page_html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vTPM readiness report{{if .Cloud}} — {{.Cloud}}{{end}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto; max-width: 1100px; color: #1d1d1f; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
.sub { color: #555; margin-top: 0; }
.id { white-space: nowrap; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 1rem; margin: 1.5rem 0; }
.tile { border: 1px solid #ddd; border-left: 6px solid #2b7a3d; border-radius: 6px; padding: .8rem 1rem; }
.tile.fail { border-left-color: #b3261e; } .tile.warn { border-left-color: #c77700; } .tile.unknown { border-left-color: #999; }
.tile h2 { font-size: 1rem; margin: 0 0 .3rem; }
.verdict { font-weight: 700; text-transform: uppercase; font-size: .8rem; }
.verdict.pass { color: #2b7a3d; } .verdict.fail { color: #b3261e; } .verdict.warn { color: #c77700; } .verdict.unknown { color: #777; }
.attention { border: 1px solid #ddd; border-radius: 6px; padding: .6rem 1rem; margin: 1rem 0; }
.attention h2 { font-size: 1.1rem; margin: .2rem 0 .4rem; }
.attention ol { margin: 0; padding-left: 1.4rem; } .attention li { margin: .25rem 0; }
.sev { font-weight: 700; text-transform: uppercase; font-size: .75rem; } .sev.fail { color: #b3261e; } .sev.warn { color: #c77700; }
.needs { border-left: 4px solid #999; padding: .3rem .8rem; color: #444; }
td.count { text-align: right; }
details summary { cursor: pointer; } details ul { margin: .3rem 0; padding-left: 1.2rem; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1rem; }
.chart { border: 1px solid #ddd; border-radius: 6px; padding: .8rem 1rem; }
.chart h3 { margin: 0 0 .5rem; font-size: 1rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; margin-top: 1rem; }
th, td { text-align: left; vertical-align: top; padding: .4rem .5rem; border-bottom: 1px solid #e5e5e5; }
th { background: #f5f5f7; }
.status { font-weight: 700; } .status.fail { color: #b3261e; } .status.warn { color: #c77700; } .status.skip { color: #777; }
.remedy { color: #444; font-size: .85rem; }
.risk { font-weight: 700; } .risk.high { color: #b3261e; } .risk.medium { color: #c77700; } .risk.unknown { color: #777; } .risk.low { color: #2b7a3d; }
footer { color: #777; font-size: .8rem; margin-top: 2rem; }
</style>
</head>
<body>
<h1>vTPM readiness report</h1>
<p class="sub">{{if .Cloud}}Cloud {{.Cloud}} · {{end}}generated {{date .Generated}} by vtpmctl · {{.Failing}} failing finding(s), {{len .Findings}} finding(s) in all</p>

{{if .Attention}}<section class="attention" aria-label="Needs attention"><h2>Needs attention, worst first</h2>
<ol>
{{range .Attention}}<li><span class="sev {{.Status}}">{{.Status}}</span> <strong>{{.Noun}}</strong>: {{if .Linked}}<a href="#{{.ID}}">{{.Title}}</a>{{else}}{{.Title}}{{end}} <span class="remedy">({{.Area}}, {{.Check}})</span></li>
{{end}}</ol>{{if .More}}
<p class="remedy">… and {{.More}} more kind(s) of finding in the findings below.</p>{{end}}</section>
{{else if .Areas}}<section class="attention" aria-label="Needs attention"><p>Nothing needs attention: no finding is fail or warn.</p></section>
{{end}}
<section class="tiles" aria-label="Summary">
{{range .Areas}}<div class="tile {{.Verdict}}"><h2>{{.Name}}</h2><span class="verdict {{.Verdict}}">{{.Verdict}}</span><p>{{.Detail}}</p>{{if .Findings}}<p class="remedy">{{.Findings}} <a href="#findings">(findings)</a></p>{{end}}</div>
{{else}}<p>No results were given.</p>{{end}}
</section>

{{if or .HostBars .GuestBars}}<section class="charts" aria-label="Charts">
{{if .HostBars}}<div class="chart"><h3>Hosts by vTPM capability</h3>
<svg width="100%" viewBox="0 0 490 112" role="img" aria-label="Hosts by vTPM capability">
{{range .HostBars}}<text x="0" y="{{.Y}}" dy="16" font-size="12">{{.Label}}</text><rect x="130" y="{{.Y}}" width="{{.Width}}" height="20" fill="{{.Colour}}"/><text x="{{.Width}}" dx="136" y="{{.Y}}" dy="15" font-size="12">{{.Value}}</text>
{{end}}</svg></div>{{end}}
{{if .GuestBars}}<div class="chart"><h3>vTPM guests by risk</h3>
<svg width="100%" viewBox="0 0 490 112" role="img" aria-label="vTPM guests by risk">
{{range .GuestBars}}<text x="0" y="{{.Y}}" dy="16" font-size="12">{{.Label}}</text><rect x="130" y="{{.Y}}" width="{{.Width}}" height="20" fill="{{.Colour}}"/><text x="{{.Width}}" dx="136" y="{{.Y}}" dy="15" font-size="12">{{.Value}}</text>
{{end}}</svg></div>{{end}}
</section>{{end}}

{{if .Risks}}<h2>BitLocker recovery risk</h2>
<p>Per vTPM guest: does its TPM state and its UEFI NVRAM survive this host's Nova, and does its NVRAM hold the 2023 Secure Boot certificates (vtpmctl's docs/bitlocker.md, "BitLocker and Secure Boot").</p>
<table>
<thead><tr><th>Risk</th><th>Host</th><th>Guest</th><th>Certificates</th><th>To get the 2023 certificates</th><th>NVRAM kept</th><th>TPM state kept</th><th>Why</th></tr></thead>
<tbody>
{{range .Risks}}<tr><td class="risk {{.Risk}}">{{.Risk}}</td><td>{{.Host}}</td><td>{{.Guest}} <span class="remedy">{{.UUID}}</span></td><td>{{.Certs}}</td><td>{{.Remedy}}</td><td>{{.NVRAMKept}}</td><td>{{.TPMKept}}</td><td>{{range $i, $r := .Reasons}}{{if $i}}; {{end}}{{$r}}{{end}}</td></tr>
{{end}}</tbody></table>{{else if .NeedsHostReports}}<h2>BitLocker recovery risk</h2>
<p class="needs">Not assessed. {{.NeedsHostReports}} Only a host's report says whether its Nova keeps each guest's TPM state and NVRAM.</p>
<h2>Secure Boot 2023 certificates</h2>
<p class="needs">Not assessed. {{.NeedsHostReports}} Only a host's report has read its guests' NVRAM.</p>{{end}}

{{if .CertsHosts}}<h2>Secure Boot 2023 certificates</h2>
<p>Per host: its vTPM guests by the Microsoft certificates their NVRAM enrols, and by what brings them the 2023 ones. {{.CertsHelp}}</p>
<table>
<thead><tr><th>Host</th><th>Guests</th><th>Certificates</th>{{range .CertRemedies}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .CertsHosts}}<tr><td>{{.Host}}</td><td>{{.Guests}}</td><td>{{.Certs}}</td>{{range .Remedies}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}

<h2 id="findings">Findings</h2>
{{if .View.Summary}}<p>This is the summary view: the {{len .Findings}} finding(s) are not listed; the full report lists them.</p>
{{else}}{{if .View.Status}}<p>Listed: the findings of status {{range $i, $s := .View.Status}}{{if $i}}, {{end}}{{$s}}{{end}} ({{.Listed}} of {{len .Findings}}).</p>
{{end}}{{if .Shown}}<p>Worst first; identical findings are one row, with how many and whom (open the list).</p>
<table>
<thead><tr><th>Status</th><th>Area</th><th>Check</th><th>Count</th><th>Subject</th><th>Finding and remedy</th></tr></thead>
<tbody>
{{range .Shown}}{{$g := .}}<tr id="{{.ID}}"><td class="status {{.Status}}">{{.Status}}</td><td>{{.Area}}</td><td>{{.Check}}</td><td class="count">{{.Count}}</td><td>{{if .Many}}<details><summary>{{.Noun}}: {{.Some}}</summary><ul>{{range .Subjects}}<li>{{whole .Name}}{{if $g.Varied}}: {{.Message}}{{end}}</li>{{end}}</ul></details>{{else}}{{range .Subjects}}{{whole .Name}}{{end}}{{end}}</td><td>{{if .Varied}}{{.Title}} (each one's own words in the list){{else}}{{.Message}}{{end}}{{if .RemedyID}}<div class="remedy">Remedy: <a href="#{{.RemedyID}}">{{.RemedyLabel}}</a></div>{{else if .Remedy}}<div class="remedy">Remedy: {{.Remedy}}</div>{{end}}</td></tr>
{{end}}</tbody></table>
{{else if .Findings}}<p>No finding of these statuses.</p>
{{else}}<p>Nothing to report: every check passed.</p>{{end}}
{{if .Remedies}}<h2>Remedies</h2>
<p>A remedy that several findings share, said once.</p>
<table>
<thead><tr><th>Remedy</th><th>Findings</th><th>What to do</th></tr></thead>
<tbody>
{{range .Remedies}}<tr id="{{.ID}}"><td>{{.Label}}</td><td>{{.Count}}</td><td>{{.Text}}</td></tr>
{{end}}</tbody></table>{{end}}{{end}}

<footer>vtpmctl never reads secret payloads. Passed checks are not listed; the JSON results hold them all.</footer>
</body>
</html>
`
