// Package report renders the host, fleet, secret and upgrade results as
// one self-contained HTML page a compliance reviewer can read offline: no
// external asset, charts drawn inline in SVG.
package report
