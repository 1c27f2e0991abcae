// Package prism runs a pipeline on Apache Beam's Prism runner in this process: a copy
// of the runner's packages of the Beam Go SDK at the version go.mod requires, with the
// fixes PATCHES.md lists (under the Apache License 2.0, LICENSE). Beam's own runner
// stays registered as "prism"; neardup's embedded runs go through Execute.
package prism

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/neardup/neardup/internal/prism/jobservices"
	"github.com/neardup/neardup/internal/prism/runner"
)

// BeamVersion is the Beam Go SDK release this copy was taken from; a test holds it to
// go.mod's.
const BeamVersion = "v2.77.0"

// Name is the runner name Execute is registered under, for tests that pick a runner by
// name (ptest).
const Name = "neardup-prism"

func init() { beam.RegisterRunner(Name, Execute) }

// Execute runs p on an in-process Prism job server and LOOPBACK workers, as Beam's
// prism.Execute does when no --endpoint is given: the server is started on the first
// call and serves every later one.
func Execute(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
	if *jobopts.Endpoint == "" {
		s := jobservices.NewServer(0, runner.RunPipeline)
		*jobopts.Endpoint = s.Endpoint()
		go s.Serve()
		if *jobopts.EnvironmentType == "" {
			*jobopts.EnvironmentType = "loopback"
		}
	}
	return universal.Execute(ctx, p)
}
