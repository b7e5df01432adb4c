package scale

import (
	"net/http"
	"sync"

	"github.com/vtpmctl/vtpmctl/internal/fakecloud"
)

// pageCache keeps the server and volume list pages a bench's cloud has
// encoded, by query: a page of 1,000 servers takes the fake some 50 ms
// of CPU to encode, on the machine the measured client runs on, which a
// real Nova spends on its own host (its latency, modelled apart). A bench
// warms it before measuring (WarmPages); the cache stops growing at
// CachePages bytes.
type pageCache struct {
	mu    sync.Mutex
	limit int
	size  int
	pages map[string][]byte
}

// CachePages keeps up to limit bytes of encoded list pages (0: none, the
// default: a test's cloud encodes every answer).
func (c *Cloud) CachePages(limit int) {
	c.cache.mu.Lock()
	c.cache.limit, c.cache.pages = limit, map[string][]byte{}
	c.cache.mu.Unlock()
}

// cached answers from the cache, or encodes with page and keeps what it
// wrote.
func (c *Cloud) cached(w http.ResponseWriter, key string, page func(http.ResponseWriter) []byte) {
	pc := &c.cache
	pc.mu.Lock()
	b, ok := pc.pages[key]
	pc.mu.Unlock()
	if ok {
		fakecloud.WriteBody(w, http.StatusOK, b)
		return
	}
	b = page(w)
	if b == nil {
		return
	}
	pc.mu.Lock()
	if pc.pages != nil && pc.size+len(b) <= pc.limit {
		pc.pages[key] = append([]byte(nil), b...)
		pc.size += len(b)
	}
	pc.mu.Unlock()
}
