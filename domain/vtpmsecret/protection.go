package vtpmsecret

import (
	"strings"

	"github.com/vtpmctl/vtpmctl/internal/result"
)

// Protection is how consumers protect a guest's secret (key-manager API
// 1.1+).
type Protection string

const (
	Protected   Protection = "protected"   // nova/instance/<this server> is a consumer
	Unprotected Protection = "unprotected" // no consumer names this server
	Mismatched  Protection = "mismatched"  // a nova/instance consumer names another or a deleted server
)

// ConsumerCounts is the fleet's guests by protection; in the summary only
// where the key manager has consumers.
type ConsumerCounts struct {
	Protected   int `json:"protected"`
	Unprotected int `json:"unprotected"`
	Mismatched  int `json:"mismatched"`
}

// NovaDeleteNote is what a consumer costs: Nova deletes the secret through
// castellan with force=False. python-barbicanclient 5.5+ (2023.1) refuses
// a secret with consumers itself (read in its code: ValueError "Secret has
// consumers!"), or asks at 1.2 and Barbican refuses (seen live on 2026.2,
// client 7.6, Barbican 23: SecretHasConsumers → castellan KeyManagerError):
// the server's delete ends in ERROR until the consumer is removed. 5.4
// (Zed's, Debian bookworm's) checks nothing and deletes.
const NovaDeleteNote = "with python-barbicanclient 5.5+ (2023.1) on the compute hosts, Nova's own delete of the server then fails (server ERROR) until the consumer is removed"

// protection classifies s's consumers for the guest serverID; servers
// says which servers exist (name, known) when the server list is complete.
func protection(f Facts, serverID string, s Secret, servers map[string]string) (Protection, Finding) {
	var own bool
	var others, foreign []string
	for _, c := range s.Consumers {
		switch {
		case c.IsNovaFor(serverID):
			own = true
		case c.IsNova():
			what := "server " + c.ResourceID + " is not in the audited projects"
			if name, ok := servers[c.Server()]; ok {
				what = "another server, " + name + " (" + c.ResourceID + ")"
			} else if r := f.liveIn(c.Server()); r != "" {
				what = "server " + c.ResourceID + ", live in region " + r
			} else if f.serversComplete() {
				what = "server " + c.ResourceID + ", which no longer exists"
			}
			foreign = append(foreign, what)
		default:
			others = append(others, c.String())
		}
	}
	also := ""
	if len(others) > 0 {
		also = "; other consumers: " + strings.Join(others, ", ")
	}
	switch {
	case len(foreign) > 0:
		w := &worded{plain: "remove it (openstack secret consumer delete), then register this server's",
			before: "remove it (openstack secret consumer delete) and run ", format: "%s", remedy: true}
		return Mismatched, hintedFinding(fd(CheckSecretConsumer, result.Warn, "a nova/instance consumer names "+strings.Join(foreign, "; ")+also, ""), HintProtect, w)
	case own:
		return Protected, fd(CheckSecretConsumer, result.Pass, "consumer "+NovaConsumer(serverID).String()+": the openstack client (python-barbicanclient 5.5+) refuses to delete it without "+clientForce+refusal(f.API)+also, "")
	}
	// Not a warning: a consumer is a trade-off (it also stops Nova's own
	// delete of the server), so an unprotected secret is a fact to count,
	// not a defect of the guest.
	return Unprotected, hintedFinding(fd(CheckSecretConsumer, result.Pass, "", ""), HintProtect, &worded{
		plain:  "no consumer names this server: a plain `openstack secret delete` removes the secret, and the guest's TPM with it; a consumer stops that (" + NovaDeleteNote + ")" + also,
		before: "no consumer names this server: a plain `openstack secret delete` removes the secret, and the guest's TPM with it; ",
		format: "%s registers one", after: " (" + NovaDeleteNote + ")" + also})
}

func refusal(a API) string {
	if a.RefusesDelete() {
		return ", and Barbican (API " + a.String() + ") refuses a delete at 1.2 without force"
	}
	return ""
}

func consumerList(cs []Consumer) string {
	l := make([]string, len(cs))
	for i, c := range cs {
		l[i] = c.String()
	}
	return strings.Join(l, ", ")
}
