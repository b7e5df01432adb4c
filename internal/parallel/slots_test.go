package parallel

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSlotsBound: however many goroutines ask, no more than the bound
// hold a slot at once, and every one gets one in the end.
func TestSlotsBound(t *testing.T) {
	s := NewSlots(3)
	var now, peak, served atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, err := s.Acquire(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			n := now.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(time.Millisecond)
			now.Add(-1)
			served.Add(1)
			tk.Done(false)
		}()
	}
	wg.Wait()
	if peak.Load() != 3 || served.Load() != 40 {
		t.Errorf("peak %d (want 3), served %d of 40", peak.Load(), served.Load())
	}
}

// TestSlotsAIMD: a window of pushbacks halves the limit once; answers
// that follow add a slot per window; it never passes the maximum or
// falls below one.
func TestSlotsAIMD(t *testing.T) {
	ctx := context.Background()
	s := NewSlots(8)
	take := func(n int) []Ticket {
		var ts []Ticket
		for i := 0; i < n; i++ {
			tk, err := s.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ts = append(ts, tk)
		}
		return ts
	}
	for _, tk := range take(8) { // one burst of refusals: one signal
		tk.Done(true)
	}
	if st := s.Stats(); st.PushBacks != 8 || st.Decreases != 1 || st.Lowest != 4 {
		t.Fatalf("after one window of 429s: %+v, want 8 pushbacks, 1 decrease, lowest 4", st)
	}
	if got := s.limitNow(); got != 4 {
		t.Fatalf("limit %v, want 4", got)
	}
	for i := 0; i < 6; i++ { // each a window of its own: 4, 2, 1, 1…
		take(1)[0].Done(true)
	}
	if got := s.limitNow(); got != 1 {
		t.Fatalf("limit %v after repeated pushback, want 1", got)
	}
	for i := 0; i < 200; i++ {
		take(1)[0].Done(false)
	}
	if got := s.limitNow(); got != 8 {
		t.Fatalf("limit %v after 200 answers, want back at the maximum 8", got)
	}
	// waiting for a slot ends with the context
	take(8)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(cctx); err == nil {
		t.Fatal("a ninth slot of eight")
	}
}

func (s *Slots) limitNow() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return float64(int(s.limit))
}

// TestPoolFollowUpsFirst: a follow-up runs before new work queued
// earlier, tasks may add tasks, and Wait waits for all of them.
func TestPoolFollowUpsFirst(t *testing.T) {
	p := NewPool(context.Background(), 1)
	var mu sync.Mutex
	var order []string
	log := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	block := make(chan struct{})
	p.Go(func(context.Context) { <-block; log("a") })
	p.Go(func(context.Context) {
		log("b")
		p.Next(func(context.Context) { log("b1") })
		p.Next(func(context.Context) { log("b2") })
	})
	p.Go(func(context.Context) { log("c") })
	close(block)
	p.Wait()
	want := "a b b1 b2 c"
	got := ""
	for i, s := range order {
		if i > 0 {
			got += " "
		}
		got += s
	}
	if got != want {
		t.Errorf("order %q, want %q", got, want)
	}
}

// TestPoolBound: the workers bound the tasks running.
func TestPoolBound(t *testing.T) {
	p := NewPool(context.Background(), 4)
	var now, peak, ran atomic.Int32
	for i := 0; i < 50; i++ {
		p.Go(func(context.Context) {
			n := now.Add(1)
			for q := peak.Load(); n > q && !peak.CompareAndSwap(q, n); q = peak.Load() {
			}
			time.Sleep(time.Millisecond)
			now.Add(-1)
			ran.Add(1)
		})
	}
	p.Wait()
	if peak.Load() > 4 || peak.Load() < 2 || ran.Load() != 50 {
		t.Errorf("peak %d (want 2..4), ran %d of 50", peak.Load(), ran.Load())
	}
}
