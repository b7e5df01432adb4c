package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

type progressKey struct{}

// WithProgress asks the next Do below ctx to report each finished call as
// (done, total). Calls inside that Do do not report: one bar, not nested ones.
func WithProgress(ctx context.Context, report func(done, total int)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// DefaultLimit suits one OpenStack API worker per service: enough to hide
// latency, few enough not to queue behind each other.
const DefaultLimit = 8

// Do calls f(i) for i in [0,n) with at most limit calls at once and returns
// each call's error at its index. Calls not yet started when ctx ends get
// ctx.Err().
func Do(ctx context.Context, n, limit int, f func(ctx context.Context, i int) error) []error {
	if limit < 1 {
		limit = DefaultLimit
	}
	errs := make([]error, n)
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	report, _ := ctx.Value(progressKey{}).(func(int, int))
	inner := ctx
	if report != nil {
		inner = context.WithValue(ctx, progressKey{}, nil)
	}
	var done int32
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			for j := i; j < n; j++ {
				errs[j] = ctx.Err()
			}
			break
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			for j := i; j < n; j++ {
				errs[j] = ctx.Err()
			}
			wg.Wait()
			return errs
		}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			errs[i] = f(inner, i)
			if report != nil {
				report(int(atomic.AddInt32(&done, 1)), n)
			}
		}(i)
	}
	wg.Wait()
	return errs
}
