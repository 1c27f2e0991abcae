package pipeline

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

func TestCheckEndpoint(t *testing.T) {
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := l.Addr().String()
	if err := checkEndpoint(ctx, "universal", up, time.Second); err != nil {
		t.Errorf("listening %s: %v", up, err)
	}
	l.Close() // now nothing listens on the port: refused at once
	start := time.Now()
	err = checkEndpoint(ctx, "universal", up, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "--endpoint "+up) || !strings.Contains(err.Error(), "no job server") {
		t.Errorf("closed %s: got %v, want an error naming --endpoint %s", up, err, up)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("closed port took %v to report", d)
	}
	// Not checked: no endpoint, Dataflow (which does not use it), gRPC targets with a scheme.
	for _, c := range []struct{ runner, endpoint string }{{"prism", ""}, {"dataflow", up}, {"universal", "dns:///" + up}, {"universal", "unix:///tmp/x.sock"}} {
		if err := checkEndpoint(ctx, c.runner, c.endpoint, time.Second); err != nil {
			t.Errorf("%s %q: %v", c.runner, c.endpoint, err)
		}
	}
}
