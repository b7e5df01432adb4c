package main

import (
	"reflect"

	"github.com/vtpmctl/vtpmctl/barbican"
	"github.com/vtpmctl/vtpmctl/domain/hostcheck"
	"github.com/vtpmctl/vtpmctl/domain/nova"
	"github.com/vtpmctl/vtpmctl/fleet"
	"github.com/vtpmctl/vtpmctl/plans"
	"github.com/vtpmctl/vtpmctl/predict"
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
}

// docs is every json/yaml document vtpmctl prints. A new command's
// document is added here; TestSchemasCurrent fails until its schema file
// is generated.
var docs = []doc{
	{Schema: predict.CheckSchema, Commands: []string{"check"}, Type: reflect.TypeFor[predict.CheckReport]()},
	{Schema: predict.ImageShowSchema, Commands: []string{"image show"}, Type: reflect.TypeFor[predict.ShownImage]()},
	{Schema: predict.ImageListSchema, Commands: []string{"image list"}, Type: reflect.TypeFor[predict.ImageList]()},
	{Schema: predict.VolumeShowSchema, Commands: []string{"volume show"}, Type: reflect.TypeFor[predict.ShownVolume]()},
	{Schema: predict.VolumeListSchema, Commands: []string{"volume list"}, Type: reflect.TypeFor[predict.VolumeList]()},
	{Schema: predict.FlavorShowSchema, Commands: []string{"flavor show"}, Type: reflect.TypeFor[predict.ShownFlavor]()},
	{Schema: predict.FlavorListSchema, Commands: []string{"flavor list"}, Type: reflect.TypeFor[predict.FlavorList]()},
	{Schema: nova.ChangesSchema, Commands: []string{"image set", "image unset", "volume set", "volume unset", "flavor create", "flavor set", "flavor unset", "plan diff", "plan apply"},
		Key: "changes", Columns: []string{"object", "key", "old", "new", "action"}},
	{Schema: hostcheck.ReportSchema, Commands: []string{"host check"}, Type: reflect.TypeFor[hostcheck.Report]()},
	{Schema: fleet.Schema, Commands: []string{"hosts audit"}, Type: reflect.TypeFor[fleet.Result]()},
	{Schema: fleet.DrainSchema, Commands: []string{"hosts audit --drain"}, Type: reflect.TypeFor[fleet.DrainResult]()},
	{Schema: fleet.HostsReportSchema, Commands: []string{"hosts report"},
		Key: "hosts", Columns: []string{"host", "nova_release", "pass", "warn", "fail", "skip", "failed_checks", "vtpm_guests", "traits"}},
	{Schema: barbican.ResultSchema, Commands: []string{"secrets audit"}, Type: reflect.TypeFor[barbican.Result]()},
	{Schema: barbican.CleanupSchema, Commands: []string{"secrets audit --cleanup-plan"}, Type: reflect.TypeFor[barbican.CleanupPlan]()},
	{Schema: barbican.ProtectSchema, Commands: []string{"secrets protect"}, Type: reflect.TypeFor[barbican.ProtectResult]()},
	{Schema: barbican.UnprotectSchema, Commands: []string{"secrets unprotect"}, Type: reflect.TypeFor[barbican.UnprotectResult]()},
	{Schema: predict.ModePlanSchema, Commands: []string{"secrets mode-plan"}, Type: reflect.TypeFor[predict.ModeChangeResult]()},
	{Schema: fleet.UpgradeSchema, Commands: []string{"upgrade check"}, Type: reflect.TypeFor[fleet.UpgradeResult]()},
	{Schema: plans.ChecklistSchema, Commands: []string{"plan checklist"}, Type: reflect.TypeFor[plans.CutoverChecklist]()},
	{Schema: plans.VerifySchema, Commands: []string{"plan verify"}, Type: reflect.TypeFor[plans.VerifyResult]()},
}
