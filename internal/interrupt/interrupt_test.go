package interrupt

import (
	"bytes"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A signal runs the registered cleanups, newest first and not the unregistered one,
// then writes one line and exits with 128+signal.
func TestSignalRunsCleanupsAndExits(t *testing.T) {
	codes := make(chan int, 1)
	exit = func(code int) { codes <- code; select {} } // the handler stops here, as at os.Exit
	var ran []string
	Register(func() string { ran = append(ran, "first"); return "removed the first" })
	unregister := Register(func() string { ran = append(ran, "gone"); return "never" })
	Register(func() string { ran = append(ran, "second"); return "" })
	unregister()

	var out syncBuffer
	Catch("neardup test", &out)
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-codes:
		if code != 128+int(syscall.SIGTERM) {
			t.Errorf("exit status %d", code)
		}
	case <-time.After(time.Minute):
		t.Fatal("no exit after SIGTERM")
	}
	if got, want := out.String(), "neardup test: interrupted by SIGTERM; removed the first\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	if len(ran) != 2 || ran[0] != "second" || ran[1] != "first" {
		t.Errorf("cleanups ran %v, want [second first]", ran)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
