package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// onTerminal runs run with a real terminal, a pty's slave end, as its
// stdin and stderr (the test sets Out), answers its [y/N] question with
// answer, and returns its exit status and what the terminal showed. It
// fails the test when no question comes within 20 s.
func onTerminal(t *testing.T, answer string, run func(*IOStreams) int) (int, string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("a pty: %v", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("the pty's number: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("the pty's slave: %v", err)
	}
	var mu sync.Mutex
	var screen bytes.Buffer
	asked := make(chan struct{})
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 4096)
		once := false
		for {
			k, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:k])
			q := strings.Contains(screen.String(), "[y/N] ")
			mu.Unlock()
			if q && !once {
				once = true
				close(asked)
			}
			if err != nil {
				return // EIO once the slave is closed
			}
		}
	}()
	done := make(chan int, 1)
	go func() { done <- run(&IOStreams{In: slave, Err: slave}) }()
	var code int
	select {
	case <-asked:
		if _, err := master.Write([]byte(answer + "\n")); err != nil {
			t.Fatal(err)
		}
		code = <-done
	case code = <-done:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("exit %d without asking on a terminal:\n%s", code, screen.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("no question on the terminal in 20 s:\n%s", screen.String())
	}
	slave.Close()
	<-readDone
	mu.Lock()
	defer mu.Unlock()
	return code, strings.ReplaceAll(screen.String(), "\r\n", "\n")
}

// TestQuestionEndsOnSignal: a signal while the [y/N] question waits ends
// the wait at once (the run's context), not at the next line typed.
func TestQuestionEndsOnSignal(t *testing.T) {
	r, w, err := os.Pipe() // nobody ever answers
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	g := writeGate{streams: &IOStreams{In: r, Err: io.Discard}, command: "image set", bulk: true}
	start := time.Now()
	if err := g.ask(ctx, []string{"x"}, "write"); !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("ask: %v after %s; want the context's end at once", err, time.Since(start))
	}
}
