package vtpmsecret

import (
	"fmt"
	"sort"
	"time"

	"github.com/vtpmctl/vtpmctl/domain/nova"
)

// resolveServiceUser finds Nova's service user without asking where the
// cloud tells: the caller's, else the one Keystone user named "nova",
// else the one creator of every deployment-mode secret in the service
// project (which then cannot catch a wrong owner, and says so). Its
// Evidence names the caller's way to give it once Result.Name has it.
func resolveServiceUser(f Facts) *ServiceUser {
	if !HasDeployment(f.Guests) {
		return nil
	}
	if f.ServiceUserID != "" {
		return serviceUser(f.ServiceUserID, ServiceUserGiven, &worded{plain: "given by the caller", format: "%s"})
	}
	if len(f.NovaNamedUsers) == 1 {
		const named = `the Keystone user named "nova" (the [service_user] username of the usual deployment tools`
		return serviceUser(f.NovaNamedUsers[0], ServiceUserNovaNamed, &worded{plain: named + ")", before: named, format: "; pass %s if yours differs", after: ")"})
	}
	deployment := map[string]bool{}
	for _, g := range f.Guests.All() {
		if g.Mode == nova.SecretDeployment {
			deployment[g.ServerID] = true
		}
	}
	creators := map[string]int{}
	for _, s := range f.Secrets.All() {
		if deployment[s.InstanceID] && s.ProjectID == f.ServiceProject {
			creators[s.CreatorID]++
		}
	}
	why := fmt.Sprintf("%d Keystone users are named \"nova\"", len(f.NovaNamedUsers))
	if len(creators) == 1 {
		for id, n := range creators {
			return serviceUser(id, ServiceUserOneCreator, appended(fmt.Sprintf("the creator of all %d deployment-mode secret(s) in the service project (%s): %s cannot catch a wrong owner this way", n, why, CheckSecretOwner), "; pass %s to check it"))
		}
	}
	return serviceUser("", ServiceUserUnknown, appended(fmt.Sprintf("unknown: %s and the service project's deployment-mode secrets have %d creators", why, len(creators)), "; pass %s"))
}

func serviceUser(id string, source ServiceUserSource, evidence *worded) *ServiceUser {
	return &ServiceUser{ID: id, Evidence: evidence.plain, Source: source, hinted: evidence}
}

// Audit matches guests and secrets. It is pure: every API answer is in f.
func Audit(f Facts, now time.Time) Result { return audit(f, now, true) }

// AuditStreamed is Audit without its guests held: each walk of the
// result's guests (EachGuest; the JSON and YAML writers) audits them
// again from f, which the result keeps. A guest's result is ~1.2 KB, most
// of an audit's memory (600 MB at 500,000 guests); auditing twice costs
// a few microseconds a guest. The guests are those Audit's result holds,
// in the same order, byte for byte.
func AuditStreamed(f Facts, now time.Time) Result { return audit(f, now, false) }

func audit(f Facts, now time.Time, keep bool) Result {
	a := newAuditor(f, now)
	res := Result{Undecided: a.undecided, Warnings: undecidedWarnings(a.undecided), Schema: ResultSchema, ReleaseContext: nova.ReleaseContext{Release: f.Release},
		NotAuditable: map[string]NotAuditable{}, Guests: []GuestResult{}, Orphans: []Orphan{}, SkippedSecrets: f.SkippedSecrets, ServiceUser: a.serviceUser}
	for p, why := range f.NotAuditable {
		res.NotAuditable[p] = why
	}
	consumers := &ConsumerCounts{}
	for _, g := range a.f.Guests.All() {
		gr := a.guest(g)
		switch {
		case gr.Failed():
			res.Summary.Failed++
		case gr.NotAudited:
		default:
			res.Summary.OK++
		}
		if gr.Consumers != nil {
			consumers.count(gr.Protection)
		}
		if keep {
			res.Guests = append(res.Guests, gr)
		}
	}
	if !keep {
		res.Guests, res.walk = nil, a
	}
	if f.API.HasConsumers() {
		res.Summary.Consumers, res.KeyManagerAPI = consumers, f.API.String()
	}
	absent := a.f.absence()
	for _, i := range a.instances {
		id := a.f.Secrets.At(int(i)).InstanceID
		res.Orphans = append(res.Orphans, orphans(a.f, id, a.secretsOf(id), a.isGuest(id), absent, now)...)
	}
	for i := range res.Orphans {
		o := &res.Orphans[i]
		if len(o.Consumers) > 0 {
			o.Reason += protectedBy(o.Consumers)
		}
		o.ProjectName, o.CreatorName = a.f.ProjectNames[o.ProjectID], a.f.Users[o.CreatorID].Name
	}
	// oldest first; the ID orders secrets created at once (the result is
	// the same on every run)
	sort.Slice(res.Orphans, func(i, j int) bool {
		a, b := res.Orphans[i], res.Orphans[j]
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.ID < b.ID
	})
	res.Summary.Guests, res.Summary.Secrets = a.f.Guests.Len(), f.Secrets.Len()
	res.Summary.recountOrphans(res.Orphans)
	res.Incomplete = append(append(append(append(res.Incomplete, f.ServerGaps...), f.regionGaps()...), f.ProjectGaps...), f.ReadGaps...)
	res.Summary.NotAuditable = len(f.NotAuditable)
	return res
}

// orphans are the secrets of one instance that are no guest's one
// secret: a live server's (here, or in another region sharing the key
// manager), a gone instance's, an undetermined one's, or a guest's
// duplicates (guest: the instance is an audited guest; absent: what the
// lists read say of an instance none of them holds).
func orphans(f Facts, id string, secs []Secret, guest bool, absent absence, now time.Time) []Orphan {
	var out []Orphan
	other, exists := f.OtherServers[id]
	region := ""
	if !guest && !exists {
		region = f.liveIn(id)
	}
	switch {
	case !guest && exists:
		why := "server " + other.Name + " exists but asks for no vTPM (resized away? the secret may still be needed by a pending resize revert)"
		if other.ImageUnknown {
			why = "server " + other.Name + " exists, its image is deleted or not visible: its image properties may request this vTPM — audit it by hand, do not delete"
		}
		for _, s := range secs {
			o := orphan(s, OrphanLive, why, now)
			o.Live = true
			out = append(out, o)
		}
	case region != "":
		// another region's guest: its secret is its own, audited there
		why := "live in region " + region + ": its Nova lists the server, and this key manager is that region's too; audit it there"
		for _, s := range secs {
			o := orphan(s, OrphanLive, why, now)
			o.Live, o.Region = true, region
			out = append(out, o)
		}
	case !guest && absent.proves:
		for _, s := range secs {
			out = append(out, orphan(s, OrphanGone, "instance "+id+" no longer exists: it is in no project's server list"+absent.elsewhere, now))
		}
	case !guest:
		why := "instance " + id + " is not among the servers read, which cannot prove it gone (" + absent.why + ")"
		for _, s := range secs {
			out = append(out, orphan(s, OrphanUndetermined, why, now))
		}
	case len(secs) > 1:
		for _, s := range secs {
			out = append(out, orphan(s, OrphanDuplicate, fmt.Sprintf("duplicate: %d secrets for instance %s; Nova uses only the one in the domain's <encryption secret>", len(secs), id), now))
		}
	}
	return out
}

// recountOrphans counts the orphans (not a live server's) and the
// undetermined secrets.
func (s *Summary) recountOrphans(os []Orphan) {
	s.Orphans, s.Undetermined = 0, 0
	for _, o := range os {
		switch {
		case o.Kind == OrphanUndetermined:
			s.Undetermined++
		case !o.Live:
			s.Orphans++
		}
	}
}

// protectedBy is what an orphan's reason adds for its consumers.
func protectedBy(cs []Consumer) string {
	return "; protected by consumer(s) " + consumerList(cs) + ": remove them first, if you are sure"
}

func orphan(s Secret, kind OrphanKind, why string, now time.Time) Orphan {
	return Orphan{Secret: s, Kind: kind, Reason: why, AgeSeconds: int64(now.Sub(s.Created) / time.Second)}
}

func humanAge(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + humanAge(-d)
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
