package result

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// Status of one check.
type Status string

const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Case is one check of one subject, as JUnit sees it.
type Case struct {
	Name    string // the check's ID
	Status  Status
	Message string
	Remedy  string
}

// Suite is one subject (a host, a project) and its checks.
type Suite struct {
	Name  string // "host cmp1", "project demo"
	Class string // JUnit classname: "vtpmctl.host.cmp1"
	Cases []Case
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Name    string       `xml:"name,attr"`
	Tests   int          `xml:"tests,attr"`
	Fails   int          `xml:"failures,attr"`
	Skips   int          `xml:"skipped,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name  string      `xml:"name,attr"`
	Tests int         `xml:"tests,attr"`
	Fails int         `xml:"failures,attr"`
	Skips int         `xml:"skipped,attr"`
	Cases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes one <testsuite> per suite, one <testcase> per case. A
// warning passes (CI systems have no "warn"); its text is kept in
// system-out.
func WriteJUnit(w io.Writer, name string, suites []Suite) error {
	out := junitSuites{Name: name}
	for _, su := range suites {
		s := junitSuite{Name: su.Name}
		for _, c := range su.Cases {
			jc := junitCase{Name: c.Name, ClassName: su.Class}
			text := c.Message
			if c.Remedy != "" {
				text += "\nremedy: " + c.Remedy
			}
			switch c.Status {
			case Fail:
				jc.Failure = &junitMessage{Message: c.Message, Body: text}
				s.Fails++
			case Skip:
				jc.Skipped = &junitMessage{Message: c.Message}
				s.Skips++
			default:
				jc.SystemOut = fmt.Sprintf("%s: %s", c.Status, text)
			}
			s.Cases = append(s.Cases, jc)
			s.Tests++
		}
		out.Tests += s.Tests
		out.Fails += s.Fails
		out.Skips += s.Skips
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// ClassName makes a JUnit classname part from a subject name.
func ClassName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

// CheckSchema refuses a saved result of another kind or version, saying
// what to do: an old file is written again by this vtpmctl.
func CheckSchema(path, got, want string) error {
	switch {
	case got == want:
		return nil
	case got == "":
		return fmt.Errorf("%s: no \"schema\" field: written by an older vtpmctl (or not by vtpmctl); run the command again to write it as %s", path, want)
	}
	return fmt.Errorf("%s: schema %q, expected %q: a result of another command or another vtpmctl version", path, got, want)
}
