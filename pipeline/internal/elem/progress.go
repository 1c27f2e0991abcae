package elem

import "sync/atomic"

// Progress is what the driver's progress line shows, updated by the DoFns. It only moves when they run in this process (the
// embedded Prism runner, or a portable runner with LOOPBACK workers); on a remote runner
// the line reports the elapsed time alone.
var Progress struct {
	Read     atomic.Int64
	Shingled atomic.Int64
	Stage    atomic.Value // string
}
