// Command neardup finds and removes near-duplicate documents: MinHash signatures, LSH
// banding, exact Jaccard verification and connected components, as an Apache Beam
// pipeline that runs embedded (Prism) or on Dataflow, Flink or Spark.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/internal/interrupt"
	"github.com/neardup/neardup/internal/sdkboot"
)

type verb struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

var verbs = []verb{
	{"dedup", "run the dedup pipeline over JSONL/text inputs and write kept/removed/rejected/clusters/stats", runDedup},
	{"index", "build an index of a corpus to dedup later corpora against (dedup --against), or show one (--info)", runIndex},
	{"query", "print each JSONL document's verified near-duplicates in an index (id, exact Jaccard)", runQuery},
	{"serve", "answer near-duplicate queries against an index over HTTP (POST /query, GET /healthz)", runServe},
	{"compare", "print exact Jaccard (and optionally the MinHash estimate) for pairs of documents in one file", runCompare},
	{"params", "show the LSH bands/rows chosen for a threshold and num_perm, with the S-curve", runParams},
	{"sign", "write each document's MinHash as hex LeanMinHash bytes, readable by datasketch", runSign},
	{"gen", "write a deterministic synthetic corpus with planted near-duplicates and their truth clusters", runGen},
	{"baseline", "find every pair with exact Jaccard >= threshold (prefix-filter similarity join)", runBaseline},
	{"report", "rewrite report.html, the page to look at a run, from a dedup output directory", runReport},
	{"eval", "score a dedup result against planted clusters and the exact baseline", runEval},
}

func main() {
	if sdkboot.Invoked(os.Args[1:]) {
		// An engine starts neardup as the boot program of its SDK workers.
		os.Exit(sdkboot.Main(os.Args[1:], os.Stderr))
	}
	if len(os.Args) >= 2 && topLevelHelp(os.Args[1:], os.Stdout) {
		return
	}
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		// A Beam worker is started as the bare binary with --worker and friends.
		startWorker()
		flag.Parse()
		beam.Init()
		usage(os.Stderr)
		os.Exit(2)
	}
	name, args := os.Args[1], os.Args[2:]
	for _, p := range []struct {
		env   string
		start func(string) error
	}{{"NEARDUP_CPUPROFILE", startCPUProfile}, {"NEARDUP_TRACE", startTrace}, {"NEARDUP_ALLOCPROFILE", startAllocProfile}} {
		if path := os.Getenv(p.env); path != "" {
			if err := p.start(path); err != nil {
				fmt.Fprintf(os.Stderr, "neardup: %s: %v\n", p.env, err)
				exit(1)
			}
		}
	}
	defer stopProfile()
	if path := os.Getenv("NEARDUP_MEMPROFILE"); path != "" {
		startHeapProfiles(path, time.Second)
	}
	interrupt.Catch("neardup "+name, os.Stderr)
	for _, v := range verbs {
		if v.name == name {
			if err := v.run(args, os.Stdout, os.Stderr); err != nil {
				if err != flag.ErrHelp && err != errHelpShown {
					printError(os.Stderr, name, err)
				}
				exit(exitCode(err))
			}
			return
		}
	}
	if name == "help" || name == "--help" {
		usage(os.Stdout)
		return
	}
	fmt.Fprintf(os.Stderr, "neardup: unknown command %q\n\n", name)
	usage(os.Stderr)
	os.Exit(2)
}

// usageError marks errors in how neardup was called (exit status 2), as opposed to
// failures while running (exit status 1).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func exitCode(err error) int {
	switch {
	case err == flag.ErrHelp || err == errHelpShown:
		return 0
	case isUsage(err):
		return 2
	}
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: neardup <command> [flags] [files]\n\ncommands:")
	for _, v := range verbs {
		fmt.Fprintf(w, "  %-8s %s\n", v.name, v.summary)
	}
	fmt.Fprintln(w, "\nRun 'neardup <command> --help' for a command's flags.\n"+beamPointer)
}
