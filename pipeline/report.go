package pipeline

import (
	"context"
	"errors"
	"slices"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/pipeline/internal/output"
	"github.com/neardup/neardup/report"
)

// writeReport writes report.html among the outputs in the temporary directory, once
// stats.json is there.
// The page is for looking at the run, not part of its result: when it cannot be built the
// run still commits, with a warning in stats.json and no report.html (the commit removes
// an older one rather than leave it to describe another run). It returns the names to
// commit.
func (pl *plan) writeReport(ctx context.Context, st *Stats) ([]string, error) {
	cfg, tempDir, names := &pl.cfg, pl.tmp(), pl.names
	without := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == report.HTMLFile })
	if cfg.Mode == ModeAnnotate {
		// The page shows kept and removed texts side by side; an annotate run writes
		// neither file, so it has no page to build.
		return without, nil
	}
	var err error
	if pl.sharded() {
		// The page samples clusters from whole files; in the sharded layout that would
		// read every part back through the launcher.
		err = errors.New("the sharded layout writes no page (--layout single does)")
	} else {
		o := report.Options{Clusters: cfg.ReportClusters, Name: cfg.Output}
		if pl.format == FormatJSONL {
			o.KeptTexts = files.Join(tempDir, sink.ReportTexts)
		}
		err = report.Write(ctx, tempDir, o)
	}
	if err == nil {
		return names, nil
	}
	st.Warnings = append(st.Warnings, "report.html not written: "+err.Error())
	return without, output.WriteJSON(ctx, files.Join(tempDir, statsFile), st)
}
