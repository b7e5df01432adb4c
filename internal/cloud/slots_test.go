package cloud

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vtpmctl/vtpmctl/internal/parallel"
)

// TestSlotsBoundTheSession: 40 GETs from 40 goroutines, through one
// session's client of concurrency 4, against a server that takes 429
// beyond 2 at once (with Retry-After 0): never more than 4 on the wire,
// the pushbacks cut the bound, and every GET still ends 200 (retried).
func TestSlotsBoundTheSession(t *testing.T) {
	oldBase := RetryBase
	RetryBase = time.Millisecond
	defer func() { RetryBase = oldBase }()
	oldTries := RetryTries
	RetryTries = 50
	defer func() { RetryTries = oldTries }()
	var now, peak, refused atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := now.Add(1)
		defer now.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n > 2 {
			refused.Add(1)
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		time.Sleep(2 * time.Millisecond)
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	slots := parallel.NewSlots(4)
	c := httpClient(&tls.Config{}, Options{Timeout: 10 * time.Second}, slots)
	var wg sync.WaitGroup
	var ok atomic.Int32
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode == 200 {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	st := slots.Stats()
	if peak.Load() > 4 || ok.Load() != 40 {
		t.Errorf("peak %d on the wire (want ≤ 4), %d of 40 answered 200", peak.Load(), ok.Load())
	}
	if int(refused.Load()) != st.PushBacks || st.PushBacks > 0 && (st.Decreases == 0 || st.Lowest >= 4) {
		t.Errorf("server refused %d, slots saw %+v", refused.Load(), st)
	}
}
