package migration

import (
	"bytes"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// ReadCatalogue reads a flavor catalogue: `flavors:` with the plan's
// flavor fields.
func ReadCatalogue(r io.Reader, file string) ([]PlanFlavor, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c struct {
		Flavors []PlanFlavor `yaml:"flavors"`
	}
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	p := Plan{Version: 1, Flavors: c.Flavors}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(c.Flavors) == 0 {
		return nil, fmt.Errorf("%s: no flavors", file)
	}
	return c.Flavors, nil
}
