package pipeline

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
)

// endpointTimeout bounds the check of a job server's address. Beam's portable runner
// waits two minutes to connect and then may wait on for workers, printing nothing
// useful; a job server that does not answer a TCP connection in this time is down or
// unreachable.
const endpointTimeout = 10 * time.Second

// checkJobServer checks the job server that Beam's --runner and --endpoint flags name.
func checkJobServer(ctx context.Context) error {
	return checkEndpoint(ctx, *runners.Runner, *jobopts.Endpoint, endpointTimeout)
}

// checkEndpoint fails fast when the job server named by --endpoint does not accept
// connections, naming the address and what to do. Only a plain host:port is checked;
// a gRPC target with a scheme (dns:///…, unix:…) is left to the runner.
func checkEndpoint(ctx context.Context, runner, endpoint string, timeout time.Duration) error {
	if endpoint == "" || strings.EqualFold(runner, "dataflow") || strings.Contains(endpoint, "/") {
		return nil
	}
	if _, _, err := net.SplitHostPort(endpoint); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", endpoint)
	if err != nil {
		return fmt.Errorf("--endpoint %s: no job server answers there (%w); start it first (for example Prism's: go run github.com/apache/beam/sdks/v2/go/cmd/prism -job_port=PORT), or leave out --runner and --endpoint to run on the embedded Prism runner", endpoint, err)
	}
	return conn.Close()
}
