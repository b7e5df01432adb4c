// Package metrics builds the node_exporter textfile view of an audit
// (-f prometheus) with client_golang's own registry and encoder: names
// and label sets are validated and the text is what Prometheus parses.
package metrics

import (
	"fmt"
	"io"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Set is one run's gauges.
type Set struct {
	descs   map[string]*prometheus.Desc
	keys    map[string][]string
	metrics []prometheus.Metric
	err     error
}

// Gauges is a result with a Prometheus view.
type Gauges interface{ Gauges() *Set }

// New starts an empty set.
func New() *Set { return &Set{descs: map[string]*prometheus.Desc{}, keys: map[string][]string{}} }

// Add records one sample; labels are name, value pairs. Every sample of
// a name must carry the same label names (the first one fixes them).
func (s *Set) Add(name, help string, value float64, labels ...string) {
	if len(labels)%2 != 0 {
		s.fail(fmt.Errorf("%s: odd label list", name))
		return
	}
	kv := map[string]string{}
	var keys []string
	for i := 0; i < len(labels); i += 2 {
		kv[labels[i]] = labels[i+1]
		keys = append(keys, labels[i])
	}
	sort.Strings(keys)
	d, ok := s.descs[name]
	if !ok {
		d = prometheus.NewDesc(name, help, keys, nil)
		s.descs[name], s.keys[name] = d, keys
	} else if fmt.Sprint(keys) != fmt.Sprint(s.keys[name]) {
		s.fail(fmt.Errorf("%s: labels %v, first sample had %v", name, keys, s.keys[name]))
		return
	}
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = kv[k]
	}
	m, err := prometheus.NewConstMetric(d, prometheus.GaugeValue, value, vals...)
	if err != nil {
		s.fail(err)
		return
	}
	s.metrics = append(s.metrics, m)
}

func (s *Set) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// Describe and Collect make the set a prometheus.Collector.
func (s *Set) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range s.descs {
		ch <- d
	}
}

func (s *Set) Collect(ch chan<- prometheus.Metric) {
	for _, m := range s.metrics {
		ch <- m
	}
}

// Gather validates the set (duplicate series, inconsistent labels) the
// way a registry does, sorted by name and labels.
func (s *Set) Gather() ([]*dto.MetricFamily, error) {
	if s.err != nil {
		return nil, s.err
	}
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(s); err != nil {
		return nil, err
	}
	return reg.Gather()
}

// Write encodes the set in the text exposition format, which the
// node_exporter textfile collector reads.
func Write(w io.Writer, s *Set) error {
	fams, err := s.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range fams {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return nil
}
