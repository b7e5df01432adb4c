package parallel

import (
	"context"
	"sync"
)

// Pool runs tasks on a fixed set of workers, and tasks may add tasks: a
// project's list adds a read for each secret it found. Follow-ups (Next)
// run before new work (Go), so a project begun is finished before the
// next is begun: what is held at once is the projects in hand, not the
// fleet, and nothing waits behind a barrier between phases.
//
// The workers bound the tasks running, not the requests: tasks ask
// through a session whose Slots bound the requests in flight. A few
// more workers than slots keep every slot busy while a worker decodes.
type Pool struct {
	ctx     context.Context
	mu      sync.Mutex
	work    *sync.Cond              // a task queued, or done: for the workers
	idle    *sync.Cond              // nothing queued or running: for Wait
	next    []func(context.Context) // follow-ups, first in first out
	later   []func(context.Context)
	running int
	done    bool // Wait saw nothing queued or running: workers leave
	wg      sync.WaitGroup
}

// NewPool starts workers (< 1: DefaultLimit) that run tasks with ctx.
// Tasks run even after ctx ends (their requests fail at once with its
// error), so every task added is accounted for.
func NewPool(ctx context.Context, workers int) *Pool {
	if workers < 1 {
		workers = DefaultLimit
	}
	p := &Pool{ctx: ctx}
	p.work, p.idle = sync.NewCond(&p.mu), sync.NewCond(&p.mu)
	p.wg.Add(workers)
	for i := 0; i < workers; i++ {
		go p.worker()
	}
	return p
}

// Go queues new work, run when no follow-up is waiting.
func (p *Pool) Go(f func(context.Context)) { p.add(&p.later, f) }

// Next queues a follow-up of work in hand, run before any new work.
func (p *Pool) Next(f func(context.Context)) { p.add(&p.next, f) }

func (p *Pool) add(q *[]func(context.Context), f func(context.Context)) {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		panic("parallel: task added to a pool after Wait returned")
	}
	*q = append(*q, f)
	p.mu.Unlock()
	p.work.Signal()
}

func (p *Pool) worker() {
	defer p.wg.Done()
	p.mu.Lock()
	for {
		var f func(context.Context)
		switch {
		case len(p.next) > 0:
			f, p.next[0] = p.next[0], nil
			p.next = p.next[1:]
		case len(p.later) > 0:
			f, p.later[0] = p.later[0], nil
			p.later = p.later[1:]
		case p.done:
			p.mu.Unlock()
			return
		default:
			p.work.Wait()
			continue
		}
		p.running++
		p.mu.Unlock()
		f(p.ctx)
		p.mu.Lock()
		p.running--
		if p.running == 0 && len(p.next) == 0 && len(p.later) == 0 {
			p.idle.Broadcast()
		}
	}
}

// Wait returns when every task, and every task they added, has run;
// the workers then leave. A pool is waited for once.
func (p *Pool) Wait() {
	p.mu.Lock()
	for p.running > 0 || len(p.next) > 0 || len(p.later) > 0 {
		p.idle.Wait()
	}
	p.done = true
	p.mu.Unlock()
	p.work.Broadcast()
	p.wg.Wait()
}
