package output

import (
	"fmt"
	"io"
	"testing"
)

// bigList is a 50,000-guest audit's rows.
func bigList() List {
	l := List{Columns: []string{"id", "name", "project", "status", "reason"}}
	for i := 0; i < 50000; i++ {
		l.Rows = append(l.Rows, Record{{"id", fmt.Sprintf("6f1c52f4-7d39-4c51-9a4f-%012d", i)}, {"name", fmt.Sprintf("guest-%05d", i)},
			{"project", fmt.Sprintf("project-%03d", i%500)}, {"status", "PASS"}, {"reason", "the secret is owned by the guest's user"}})
	}
	return l
}

// BenchmarkWriteBig: bytes allocated to render 50,000 rows as json and
// yaml (the document was built whole, then copied into a string) and as
// a table (every cell was copied and held until the last line).
func BenchmarkWriteBig(b *testing.B) {
	l := bigList()
	for _, f := range []string{"json", "yaml", "table"} {
		b.Run(f, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := Write(io.Discard, Options{Format: f}, l); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
