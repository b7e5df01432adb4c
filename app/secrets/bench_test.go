package secrets

import (
	"context"
	"fmt"
	"testing"

	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

// fakeFleet is a generated cloud of guests vTPM guests over projects
// projects, one secret each (created by its owner, one user per 20
// guests as at 50,000 guests / 2,500 users), a tenth as many other
// secrets, and the owners' roles.
func fakeFleet(b testing.TB, guests, projects int, oldPaging bool) (*fakeCloud, Sources) {
	c := newFakeCloud(b)
	c.oldPaging = oldPaging
	per := guests / projects
	inv := &nova.Inventory{}
	var ps []string
	for p := 0; p < projects; p++ {
		pid := fmt.Sprintf("project%03d", p)
		ps = append(ps, pid)
		owner := func(i int) string { return fmt.Sprintf("user-%d-%d", p, i/20) }
		c.addSecrets(pid, p, p*per, per, per/10, owner)
		for i := 0; i < per; i++ {
			inv.Guests.Add(vtpmsecret.Guest{ServerID: fakeUUID(9, p*per+i), ProjectID: pid, UserID: owner(i), Mode: "user"})
			c.users[owner(i)] = fakeUser{name: owner(i), enabled: true}
			if i%20 == 0 {
				c.members[pid] = append(c.members[pid], owner(i))
			}
		}
	}
	src := c.sources(ps...)
	src.Inventory = inv
	return c, src
}

// BenchmarkGather2000 gathers the secret audit's facts of 2,000 guests in
// 16 projects (125 each: two secret pages; ACLs read) and reports the requests it takes: the floor is
// one secret page per project, one ACL per secret, one user and one role
// assignment list.
func BenchmarkGather2000(b *testing.B) {
	for _, old := range []bool{false, true} {
		b.Run(fmt.Sprintf("old-paging=%v", old), func(b *testing.B) {
			c, src := fakeFleet(b, 2000, 16, old)
			for i := 0; i < b.N; i++ {
				f, err := Gather(context.Background(), src)
				if err != nil || f.Secrets.Len() != 2000 {
					b.Fatalf("%d secrets, %v", f.Secrets.Len(), err)
				}
			}
			b.ReportMetric(float64(c.total())/float64(b.N), "requests/op")
		})
	}
}
