package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoBoundsConcurrency(t *testing.T) {
	var now, peak int32
	errs := Do(context.Background(), 50, 4, func(_ context.Context, i int) error {
		n := atomic.AddInt32(&now, 1)
		for {
			p := atomic.LoadInt32(&peak)
			if n <= p || atomic.CompareAndSwapInt32(&peak, p, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		atomic.AddInt32(&now, -1)
		if i == 7 {
			return errors.New("seven")
		}
		return nil
	})
	if peak > 4 || peak < 2 {
		t.Errorf("peak concurrency %d, want 2..4", peak)
	}
	for i, err := range errs {
		if (i == 7) != (err != nil) {
			t.Errorf("errs[%d] = %v", i, err)
		}
	}
}

func TestDoStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errs := Do(ctx, 3, 1, func(context.Context, int) error { return nil })
	if !errors.Is(errs[2], context.Canceled) {
		t.Errorf("want canceled, got %v", errs)
	}
}

func TestProgressOnlyOutermost(t *testing.T) {
	var calls, last int32
	ctx := WithProgress(context.Background(), func(done, total int) {
		atomic.AddInt32(&calls, 1)
		if total != 5 {
			t.Errorf("total %d", total)
		}
		atomic.StoreInt32(&last, int32(done))
	})
	Do(ctx, 5, 2, func(ctx context.Context, i int) error {
		Do(ctx, 3, 1, func(context.Context, int) error { return nil }) // must not report
		return nil
	})
	if calls != 5 || last == 0 {
		t.Errorf("%d reports, want 5 (the inner Do reports nothing)", calls)
	}
}
