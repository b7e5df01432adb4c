// Package reportpage renders the host, fleet, secret and upgrade results as
// one self-contained HTML page a compliance reviewer can read offline: no
// external asset, charts drawn inline in SVG. It is pure: the results
// come typed (a run's, from app/report's Build, or saved JSON).
package reportpage
