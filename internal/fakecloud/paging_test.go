package fakecloud

import (
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
)

// Markers: limit capped, after the marker, a next link on every full
// page (so a multiple of the limit costs an empty page), 400 for an
// unknown marker.
func TestMarkers(t *testing.T) {
	m := Markers{N: 4, ID: func(i int) string { return "m" + strconv.Itoa(i) },
		Index: func(id string) (int, bool) { i, err := strconv.Atoi(id[1:]); return i, err == nil }}
	for _, tc := range []struct {
		query    string
		from, to int
		next     string
	}{
		{"limit=2", 0, 2, "/l?limit=2&marker=m1"},
		{"limit=2&marker=m1", 2, 4, "/l?limit=2&marker=m3"},
		{"limit=2&marker=m3", 4, 4, ""},
		{"", 0, 4, ""},
	} {
		r := httptest.NewRequest("GET", "/l?"+tc.query, nil)
		from, to, ok := m.Page(httptest.NewRecorder(), r)
		if next := m.Next(r, "/l", from, to); !ok || from != tc.from || to != tc.to || next != tc.next {
			t.Errorf("%s: [%d,%d) %v next %q", tc.query, from, to, ok, next)
		}
	}
	w := httptest.NewRecorder()
	if _, _, ok := m.Page(w, httptest.NewRequest("GET", "/l?marker=m9", nil)); ok || w.Code != 400 {
		t.Errorf("unknown marker: %v %d", ok, w.Code)
	}
}

// Offsets: Barbican's old next link drops the filter, the new one keeps
// it; a server's max_limit caps the page.
func TestOffsets(t *testing.T) {
	r := httptest.NewRequest("GET", "/s?name=vTPM%25&limit=100&offset=100", nil)
	for _, o := range []Offsets{{Old: true}, {}, {MaxLimit: 50}} {
		from, to, limit := o.Page(r, 260)
		next, prev := o.Links(r, "/s", 260, from, limit)
		u, _ := url.Parse(next)
		want := 100
		if o.MaxLimit > 0 {
			want = o.MaxLimit
		}
		if from != 100 || to != 100+limit || prev == "" || u.Query().Has("name") == o.Old || u.Query().Get("offset") != strconv.Itoa(100+limit) || limit != want {
			t.Errorf("%+v: [%d,%d) at %d, next %s prev %s", o, from, to, limit, next, prev)
		}
	}
	if from, to, _ := (Offsets{IgnoreOffset: true}).Page(r, 260); from != 0 || to != 100 {
		t.Errorf("ignoring the offset: [%d,%d)", from, to)
	}
}
