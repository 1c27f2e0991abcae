package source

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/neardup/neardup/io/files"
)

// ReadBack lists, one warning per input pattern, the output files (names in outputDir)
// that the pattern matches: a run with that --input would read this run's outputs
// back as input (kept.jsonl as documents, for one). Only names are compared, so it
// holds whether or not the outputs exist yet.
func ReadBack(patterns []string, outputDir string, names []string) []string {
	var warnings []string
	for _, p := range patterns {
		var hit []string
		for _, n := range names {
			if matches(p, files.Join(outputDir, n)) {
				hit = append(hit, n)
			}
		}
		if len(hit) > 0 {
			warnings = append(warnings, fmt.Sprintf("--input %s matches the outputs %s in --output %s: "+
				"a run with this --input would read them back as input; write the outputs elsewhere", p, strings.Join(hit, ", "), outputDir))
		}
	}
	return warnings
}

// matches reports whether the glob pattern names file, as files.Expand would list it:
// local paths are compared absolute and cleaned, URLs as they are.
func matches(pattern, file string) bool {
	if files.IsLocal(pattern) != files.IsLocal(file) {
		return false
	}
	if !files.IsLocal(pattern) {
		ok, err := path.Match(pattern, file)
		return err == nil && ok
	}
	ap, err1 := filepath.Abs(pattern)
	af, err2 := filepath.Abs(file)
	if err1 != nil || err2 != nil {
		return false
	}
	ok, err := filepath.Match(ap, af)
	return err == nil && ok
}
