// Package layout names the files of an output written in parts: the single-file layout
// (kept.jsonl) and the sharded one (kept/part-00003-of-00064.jsonl.zst), which Hugging
// Face datasets and datatrove read as one dataset.
package layout

import (
	"fmt"
	"path"
	"strings"
)

// Layouts.
const (
	Auto    = "auto"    // Single on the embedded runner with local output, Sharded otherwise
	Single  = "single"  // one file per output
	Sharded = "sharded" // a directory of parts per output
)

// Compressions of sharded parts.
const (
	None = "none"
	Gzip = "gzip"
	Zstd = "zstd"
)

// Resolve turns Auto into Single or Sharded: one file is cheap only when one process
// writes to local disk.
func Resolve(layout string, embedded, localOutput bool) string {
	if layout != Auto {
		return layout
	}
	if embedded && localOutput {
		return Single
	}
	return Sharded
}

// Dir is the directory holding the parts of the output name: "kept" for "kept.jsonl".
func Dir(name string) string { return strings.TrimSuffix(name, path.Ext(name)) }

// Part is the path, relative to the output directory, of part i of n of the output
// name, compressed by compress: Part("kept.jsonl", 3, 64, Zstd) is
// "kept/part-00003-of-00064.jsonl.zst".
func Part(name string, i, n int, compress string) string {
	return fmt.Sprintf("%s/part-%05d-of-%05d%s%s", Dir(name), i, n, path.Ext(name), Ext(compress))
}

// Parts lists the paths of the n parts of name, in order.
func Parts(name string, n int, compress string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = Part(name, i, n, compress)
	}
	return out
}

// Ext is the file extension of a compression: ".gz", ".zst" or "".
func Ext(compress string) string {
	switch compress {
	case Gzip:
		return ".gz"
	case Zstd:
		return ".zst"
	}
	return ""
}
