package main

import (
	"flag"
	"io"

	"github.com/neardup/neardup/baseline"
	"github.com/neardup/neardup/eval"
	"github.com/neardup/neardup/gen"
)

// The tool verbs are thin flag layers: each package defines its options and flags.

func runGen(args []string, _, stderr io.Writer) error {
	o := gen.Defaults()
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	o.RegisterFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return usageError{err}
	}
	return gen.Run(o, stderr)
}

func runBaseline(args []string, stdout, stderr io.Writer) error {
	o := baseline.Defaults()
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	o.RegisterFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return usageError{err}
	}
	return baseline.Run(o, stdout, stderr)
}

func runEval(args []string, stdout, _ io.Writer) error {
	o := eval.Defaults()
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	o.RegisterFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return eval.Run(o, stdout)
}
