package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup/pipeline"
)

// beamPointer is all neardup's own help says about the Beam SDK's flags (--runner,
// --endpoint, --project, ...): listing them first buried neardup's own under a hundred
// lines of Dataflow options.
const beamPointer = "Apache Beam runner flags (--runner, --endpoint, --environment_type, --project, --region, ...) are accepted too: 'neardup --help-beam' lists them."

// topLevelHelp handles `neardup -h`, `--help` and `--help-beam` (the only arguments
// starting with '-' that are not a Beam worker's) and reports whether it did.
func topLevelHelp(args []string, stdout io.Writer) bool {
	if len(args) != 1 {
		return false
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return true
	case "-help-beam", "--help-beam":
		printBeamFlags(stdout)
		return true
	}
	return false
}

// printBeamFlags lists the flags the Beam SDK registers on the global flag set.
func printBeamFlags(w io.Writer) {
	fmt.Fprintln(w, "Apache Beam Go SDK flags, accepted by 'neardup dedup' next to its own (see docs/engines.md):")
	flag.CommandLine.SetOutput(w)
	flag.CommandLine.PrintDefaults()
}

// errHelpShown ends a command after it printed its help on request: exit status 0.
var errHelpShown = errors.New("help shown")

// parseWithBeam parses a command's own flags (own) together with Beam's global ones into
// a fresh flag set sharing their values, so that Beam sees --runner and friends while
// help and errors talk only about own. A fresh set per call keeps the global flag set
// free of neardup's flags (and a second call from redefining them).
func parseWithBeam(own *flag.FlagSet, args []string, stdout io.Writer, usageLine string) error {
	all := flag.NewFlagSet(own.Name(), flag.ContinueOnError)
	all.SetOutput(io.Discard)
	all.Usage = func() {}
	own.VisitAll(func(f *flag.Flag) { all.Var(f.Value, f.Name, f.Usage) })
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if all.Lookup(f.Name) == nil {
			all.Var(f.Value, f.Name, f.Usage)
		}
	})
	helpBeam := all.Bool("help-beam", false, "list the Apache Beam runner flags")
	err := all.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, usageLine+"\n\nflags:")
		own.SetOutput(stdout)
		own.PrintDefaults()
		fmt.Fprintln(stdout, "\n"+beamPointer)
		return errHelpShown
	case err != nil:
		return usageError{fmt.Errorf("%w (run 'neardup %s --help' for the flags)", err, own.Name())}
	case *helpBeam:
		printBeamFlags(stdout)
		return errHelpShown
	case all.NArg() > 0:
		return usageError{fmt.Errorf("unexpected argument %q: give every input with --input (quote globs: --input 'dir/*.jsonl')", all.Arg(0))}
	}
	return nil
}

// printError writes err as the run's last lines, one `neardup VERB: error: ...` line per
// joined error, so the final line always says what failed.
func printError(w io.Writer, verb string, err error) {
	for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		if strings.TrimSpace(line) != "" {
			fmt.Fprintf(w, "neardup %s: error: %s\n", verb, line)
		}
	}
}

// isUsage reports whether err is an error in how neardup was called (exit status 2).
func isUsage(err error) bool {
	var u usageError
	var pu pipeline.UsageError
	return errors.As(err, &u) || errors.As(err, &pu)
}
