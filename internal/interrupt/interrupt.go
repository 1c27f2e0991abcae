// Package interrupt cleans up after a run stopped by SIGINT or SIGTERM: the code that
// holds something to undo (a temporary directory, a lock) registers how to undo it, and
// the signal handler runs those cleanups, prints one line and exits. Without it the
// process dies at once and leaves them to the next run.
package interrupt

import (
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	mu       sync.Mutex // held by the handler from the signal to the exit, and by Critical
	next     int
	cleanups = map[int]func() string{}
)

// exit ends the process; a test replaces it.
var exit = os.Exit

// Register adds a cleanup, which returns what it did ("" for nothing worth saying), and
// returns the function that removes it again. Cleanups run newest first.
func Register(cleanup func() string) (unregister func()) {
	mu.Lock()
	defer mu.Unlock()
	next++
	id := next
	cleanups[id] = cleanup
	return func() {
		mu.Lock()
		defer mu.Unlock()
		delete(cleanups, id)
	}
}

// Critical runs fn with the signal handler held off: a signal during fn is acted on
// once it returns (a commit is finished, not cut in the middle).
func Critical(fn func() error) error {
	mu.Lock()
	defer mu.Unlock()
	return fn()
}

// Catch handles SIGINT and SIGTERM from now on: it runs the registered cleanups, writes
// one line "PREFIX: interrupted by SIGNAL; …what they did" to w, and exits with status
// 128 plus the signal's number, as a shell reports a process the signal ended.
func Catch(prefix string, w io.Writer) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-ch
		mu.Lock()
		ids := slices.Sorted(maps.Keys(cleanups))
		var done []string
		for _, id := range slices.Backward(ids) {
			if s := cleanups[id](); s != "" {
				done = append(done, s)
			}
		}
		line := fmt.Sprintf("%s: interrupted by %s", prefix, name(sig))
		if len(done) > 0 {
			line += "; " + strings.Join(done, "; ")
		}
		fmt.Fprintln(w, line)
		code := 130
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		exit(code)
	}()
}

func name(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// Retry calls fn until it succeeds, up to ten times a few milliseconds apart: a cleanup
// removes directories the interrupted run's goroutines may still be writing into.
func Retry(fn func() error) error {
	var err error
	for range 10 {
		if err = fn(); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}
