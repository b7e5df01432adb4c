// Package rvtoolsgen makes a large RVTools export from a small one, for
// the import benchmark (planbench) and tests that need a long import.
package rvtoolsgen

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strings"
)

// Write writes n rows cycled from fixture's to w, each VM renamed
// (NAME-000123) and given its own UUIDs and VM ID; a row of the wrong
// width (the fixture keeps one on purpose) is replaced by the first.
func Write(w io.Writer, fixture string, n int) error {
	f, err := os.Open(fixture)
	if err != nil {
		return err
	}
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	f.Close()
	if err != nil {
		return err
	}
	if len(recs) < 2 {
		return fmt.Errorf("%s: no rows", fixture)
	}
	header, rows := recs[0], recs[1:]
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := csv.NewWriter(bw)
	cw.Write(header)
	for i := 0; i < n; i++ {
		r := append([]string{}, rows[i%len(rows)]...)
		if len(r) != len(header) {
			r = append([]string{}, rows[0]...)
		}
		r[col["VM"]] = fmt.Sprintf("%s-%06d", r[col["VM"]], i)
		for _, c := range []string{"VM UUID", "SMBIOS UUID", "VM ID"} {
			if j, ok := col[c]; ok && r[j] != "" {
				r[j] = fmt.Sprintf("%s-%06d", strings.TrimSpace(r[j]), i)
			}
		}
		cw.Write(r)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}
