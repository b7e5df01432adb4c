package nova

// ChangesSchema names the JSON of the commands that write objects' vTPM
// keys and print their changes: image, volume and flavor set, unset and
// create, plan diff and plan apply ({"schema", "changes": [rows]}).
const ChangesSchema = "vtpmctl.changes/1"
