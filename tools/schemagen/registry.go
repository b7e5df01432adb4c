package main

import (
	"reflect"

	"github.com/vtpmctl/vtpmctl/app/check"
	"github.com/vtpmctl/vtpmctl/app/flavor"
	"github.com/vtpmctl/vtpmctl/app/image"
	"github.com/vtpmctl/vtpmctl/app/secrets"
	"github.com/vtpmctl/vtpmctl/app/secureboot"
	"github.com/vtpmctl/vtpmctl/app/volume"
	"github.com/vtpmctl/vtpmctl/domain/fleet"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/migration"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/domain/vtpmsecret"
)

// doc is one document a command prints: its schema name, the commands
// that print it, and the Go type its JSON is (nil for a list a command
// builds from rows: Columns are then its rows' keys, under Key).
type doc struct {
	Schema   string
	Commands []string
	Type     reflect.Type
	Key      string
	Columns  []string
	// Lists are the document's other lists of objects (a list built from
	// rows: output.List's Extra): each one's keys.
	Lists map[string][]string
}

// docs is every json/yaml document vtpmctl prints. A new command's
// document is added here; TestSchemasCurrent fails until its schema file
// is generated.
var docs = []doc{
	{Schema: check.Schema, Commands: []string{"check"}, Type: reflect.TypeFor[check.Report]()},
	{Schema: image.ShowSchema, Commands: []string{"image show"}, Type: reflect.TypeFor[image.Shown]()},
	{Schema: image.ListSchema, Commands: []string{"image list"}, Type: reflect.TypeFor[image.Listed]()},
	{Schema: volume.ShowSchema, Commands: []string{"volume show"}, Type: reflect.TypeFor[volume.Shown]()},
	{Schema: volume.ListSchema, Commands: []string{"volume list"}, Type: reflect.TypeFor[volume.Listed]()},
	{Schema: flavor.ShowSchema, Commands: []string{"flavor show"}, Type: reflect.TypeFor[flavor.Shown]()},
	{Schema: flavor.ListSchema, Commands: []string{"flavor list"}, Type: reflect.TypeFor[flavor.Listed]()},
	{Schema: nova.ChangesSchema, Commands: []string{"image set", "image unset", "volume set", "volume unset", "flavor create", "flavor set", "flavor unset", "plan diff", "plan apply"},
		Key: "changes", Columns: []string{"object", "key", "old", "new", "action"},
		Lists: map[string][]string{"near_misses": {"object", "key", "kind", "did_you_mean", "reason"}}},
	{Schema: hostcheck.ReportSchema, Commands: []string{"host check"}, Type: reflect.TypeFor[hostcheck.Report]()},
	{Schema: secureboot.StatusSchema, Commands: []string{"host secure-boot status"}, Type: reflect.TypeFor[secureboot.StatusResult]()},
	{Schema: secureboot.UpdateSchema, Commands: []string{"host secure-boot update"}, Type: reflect.TypeFor[secureboot.UpdateResult]()},
	{Schema: fleet.Schema, Commands: []string{"hosts audit"}, Type: reflect.TypeFor[fleet.Result]()},
	{Schema: fleet.DrainSchema, Commands: []string{"hosts audit --drain"}, Type: reflect.TypeFor[fleet.DrainResult]()},
	{Schema: fleet.HostsReportSchema, Commands: []string{"hosts report"},
		Key: "hosts", Columns: []string{"result", "host", "nova_release", "pass", "warn", "fail", "skip", "failed_checks", "vtpm_guests", "traits"}},
	{Schema: vtpmsecret.ResultSchema, Commands: []string{"secrets audit"}, Type: reflect.TypeFor[vtpmsecret.Result]()},
	{Schema: vtpmsecret.CleanupSchema, Commands: []string{"secrets audit --cleanup-plan"}, Type: reflect.TypeFor[vtpmsecret.CleanupPlan]()},
	{Schema: vtpmsecret.ProtectSchema, Commands: []string{"secrets protect"}, Type: reflect.TypeFor[vtpmsecret.ProtectResult]()},
	{Schema: vtpmsecret.UnprotectSchema, Commands: []string{"secrets unprotect"}, Type: reflect.TypeFor[vtpmsecret.UnprotectResult]()},
	{Schema: secrets.ModePlanSchema, Commands: []string{"secrets mode-plan"}, Type: reflect.TypeFor[secrets.ModeChangeResult]()},
	{Schema: fleet.UpgradeSchema, Commands: []string{"upgrade check"}, Type: reflect.TypeFor[fleet.UpgradeResult]()},
	{Schema: migration.ChecklistSchema, Commands: []string{"plan checklist"}, Type: reflect.TypeFor[migration.CutoverChecklist]()},
	{Schema: migration.VerifySchema, Commands: []string{"plan verify"}, Type: reflect.TypeFor[migration.VerifyResult]()},
}

// retired is every schema a command printed before its document got a
// new version: its file stays in docs/schemas as it was (a script may
// still hold such a document), schemagen no longer writes it, and the
// index lists it with what replaced it.
var retired = []struct{ Schema, By string }{
	{"vtpmctl.hosts-audit/1", fleet.Schema},
	{"vtpmctl.upgrade-check/1", fleet.UpgradeSchema},
	{"vtpmctl.secrets-audit/1", vtpmsecret.ResultSchema},
	{"vtpmctl.secrets-cleanup-plan/1", vtpmsecret.CleanupSchema},
}
