package fakecloud

import (
	"net/http"
	"strconv"
)

// MaxLimit is Nova's, Glance's and Cinder's default max_limit.
const MaxLimit = 1000

// Markers pages a list of N items by limit and marker, as Nova, Cinder
// and Glance do.
type Markers struct {
	N     int
	ID    func(i int) string          // item i's ID: a page's marker
	Index func(id string) (int, bool) // the item a marker names
	// MaxLimit is the service's max_limit (0: MaxLimit): a page holds
	// at most that many, whatever limit was asked for.
	MaxLimit int
}

func (m Markers) limit(r *http.Request) (int, error) {
	top := MaxLimit
	if m.MaxLimit > 0 {
		top = m.MaxLimit
	}
	s := r.URL.Query().Get("limit")
	if s == "" {
		return top, nil
	}
	n, err := strconv.Atoi(s)
	if err == nil && n < 0 {
		err = strconv.ErrRange
	}
	return min(n, top), err
}

// Page is the items [from, to) the request asks for: limit capped at
// MaxLimit, after the marker's item. ok false: it was answered 400 (a
// bad limit, an unknown marker), as Nova answers.
func (m Markers) Page(w http.ResponseWriter, r *http.Request) (from, to int, ok bool) {
	limit, err := m.limit(r)
	if err != nil {
		Reply(w, 400, map[string]any{"badRequest": map[string]any{"code": 400, "message": "limit param must be an integer"}})
		return 0, 0, false
	}
	if mk := r.URL.Query().Get("marker"); mk != "" {
		i, ok := m.Index(mk)
		if !ok || i >= m.N {
			Reply(w, 400, map[string]any{"badRequest": map[string]any{"code": 400, "message": "marker [" + mk + "] not found"}})
			return 0, 0, false
		}
		from = i + 1
	}
	return from, min(m.N, from+limit), true
}

// Next is the next page's URL, base and the request's query with the
// marker of the page's last item; "" after a page that is not full.
// Every full page links on, so a multiple of the limit costs one empty
// page more, as on a real Nova or Cinder.
func (m Markers) Next(r *http.Request, base string, from, to int) string {
	limit, _ := m.limit(r)
	if to-from == 0 || to-from != limit {
		return ""
	}
	q := r.URL.Query()
	q.Set("marker", m.ID(to-1))
	return base + "?" + q.Encode()
}

// Links is Nova's and Cinder's "<key>_links" for a next URL.
func Links(next string) []map[string]string {
	return []map[string]string{{"href": next, "rel": "next"}}
}

// Offsets pages Barbican's way: offset and limit (10 unless asked, at
// most MaxLimit), a next link while more remain, a previous one after the
// first page.
type Offsets struct {
	// Old: the next link keeps limit and offset only, dropping the name
	// filter, as every Barbican from Zed to 2025.1; else the query.
	Old bool
	// MaxLimit is Barbican's max_limit_paging (0: 100): pages hold at
	// most that many, whatever limit was asked for.
	MaxLimit int
	// IgnoreOffset: every page is the first (a broken or hostile server).
	IgnoreOffset bool
}

// Page is the items [from, to) of total the request asks for, and the
// limit it was served at.
func (o Offsets) Page(r *http.Request, total int) (from, to, limit int) {
	q := r.URL.Query()
	limit = 10
	if s := q.Get("limit"); s != "" {
		limit, _ = strconv.Atoi(s)
	}
	top := 100
	if o.MaxLimit > 0 {
		top = o.MaxLimit
	}
	limit = max(0, min(limit, top))
	offset := 0
	if !o.IgnoreOffset {
		offset, _ = strconv.Atoi(q.Get("offset"))
	}
	offset = max(0, offset)
	return min(offset, total), min(offset+limit, total), limit
}

// Links are the next and previous URLs (on base) of the page from..,
// "" where there is none.
func (o Offsets) Links(r *http.Request, base string, total, from, limit int) (next, previous string) {
	nav := func(off int) string {
		q := r.URL.Query()
		if o.Old {
			q = map[string][]string{}
		}
		q.Set("limit", strconv.Itoa(limit))
		q.Set("offset", strconv.Itoa(off))
		return base + "?" + q.Encode()
	}
	if from+limit < total {
		next = nav(from + limit)
	}
	if from > 0 {
		previous = nav(max(0, from-limit))
	}
	return next, previous
}
