package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/report"
)

// runReport rebuilds report.html from the outputs of a finished dedup run.
func runReport(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	clusters := fs.Int("report-clusters", report.DefaultClusters, "clusters the page samples: the largest fifth, then a seeded random sample")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: neardup report [--report-clusters N] OUTPUT_DIR\n\nrewrites OUTPUT_DIR/report.html from the outputs of neardup dedup there")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dir, err := oneFile(fs)
	if err != nil {
		return err
	}
	if *clusters < 0 {
		return usageError{fmt.Errorf("--report-clusters: must be 0 or more, got %d", *clusters)}
	}
	if err := report.Write(context.Background(), dir, report.Options{Clusters: *clusters}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", files.Join(dir, report.HTMLFile))
	return nil
}
