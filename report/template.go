package report

import (
	"html/template"
	"strings"
)

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"id": shownID,
	"segClass": func(op Op) string {
		switch op {
		case Deleted:
			return "del"
		case Added:
			return "add"
		}
		return ""
	},
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
	"join": strings.Join,
}).Parse(pageHTML))

// The page: no external resource of any kind, so it opens from file:// anywhere.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>neardup report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1400px; padding: 0 1.5em 3em; color: #222; }
h1 { margin-top: 1em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; } td, th { padding: .15em .8em; text-align: left; border-bottom: 1px solid #eee; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.grid { display: flex; flex-wrap: wrap; gap: 2em; align-items: flex-start; }
.warn { background: #fff3cd; border: 1px solid #e0c36a; padding: .5em 1em; }
.bar { background: #1f77b4; height: 1em; display: inline-block; vertical-align: middle; }
.note { color: #666; font-size: .9em; }
.cluster, .near { border: 1px solid #ddd; border-radius: 4px; margin: 1em 0; padding: .5em 1em; }
.pair { margin: .6em 0 1em; }
.pairhead { font-size: .9em; color: #444; margin-bottom: .3em; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
.text { white-space: pre-wrap; word-wrap: break-word; font-family: ui-monospace, monospace; font-size: .85em; background: #fafafa; border: 1px solid #e4e4e4; padding: .5em; }
.pair.long:not(.open) .text { max-height: 12em; overflow: hidden; }
.text .del { background: #ffd7d5; text-decoration: line-through; }
.text .add { background: #c9f2c9; }
.side-label { font-size: .8em; color: #666; }
button.toggle { font-size: .8em; margin-top: .3em; }
</style>
</head>
<body>
<h1>neardup report</h1>
<p class="note" id="outdir">Output directory <code>{{.Dir}}</code>. Everything below comes from its files (stats.json, similarities.json, clusters.jsonl, removed.jsonl, the kept file); the page holds a sample, never the whole corpus, and is capped at {{.Options.MaxBytes}} bytes.</p>
{{range .Stats.Warnings}}<p class="warn" data-warning>warning: {{.}}</p>
{{end}}
<h2 id="run">The run</h2>
<div class="grid">
<div><h3>Counts</h3><table id="counts">{{range .Counts}}<tr><td>{{.K}}</td><td class="n" data-count="{{.K}}">{{.V}}</td></tr>{{end}}</table></div>
<div><h3>Parameters</h3><table id="parameters">{{range .Params}}<tr><td>{{.K}}</td><td>{{.V}}</td></tr>{{end}}</table></div>
<div><h3>Timings</h3><table id="timings">{{range .Timings}}<tr><td>{{.K}}</td><td class="n">{{.V}}</td></tr>{{end}}</table>
<h3>Connected components</h3><table>{{range .CC}}<tr><td>{{.K}}</td><td>{{.V}}</td></tr>{{end}}</table></div>
</div>
<h3>Inputs</h3>
<ul>{{range .Inputs}}<li><code>{{.}}</code></li>{{end}}{{if .MoreInputs}}<li>… and {{.MoreInputs}} more (stats.json lists them all)</li>{{end}}</ul>

<h2 id="scurve">Where the threshold cuts</h2>
<p class="note">The curve is the chance that LSH makes a pair of a given similarity a candidate. Bars count the candidate pairs verification decided{{if .Sims}} ({{.Sims.Basis}} similarity, bins of {{.Sims.BinWidth}}){{end}}: green were verified duplicates, red false candidates. Exact duplicates ({{index .Stats.Counts "exact_duplicates"}}) are joined before LSH and are not counted here.{{if not .Sims}} This output has no similarities.json (written by newer neardup versions), so there are no bars.{{end}}</p>
<div id="scurve-plot">{{.SCurve}}</div>

<h2 id="sizes">Cluster sizes</h2>
<div class="grid">
<div><h3>Clusters by size</h3><table id="size-histogram">{{range .Sizes}}<tr><td>{{.Label}}</td><td class="n">{{.N}}</td><td><span class="bar" style="width: {{.Width}}px"></span></td></tr>{{else}}<tr><td>no clusters</td></tr>{{end}}</table>
<p class="note">largest cluster: {{.Stats.LargestCluster}} documents; {{.ClustersTotal}} clusters of two or more.</p></div>
<div><h3>Largest clusters</h3><table id="largest"><tr><th>cluster</th><th>size</th><th>kept</th></tr>{{range .Largest}}<tr><td><code>{{id .ID}}</code></td><td class="n">{{.Size}}</td><td><code>{{id .Kept}}</code></td></tr>{{end}}</table></div>
</div>

<h2 id="clusters">Sampled clusters</h2>
<p class="note">{{len .Clusters}} of {{.ClustersTotal}} clusters: the largest first, then a random sample seeded by the run's --seed (the same on every run). Each removed document (right, additions in green) is shown beside the kept one (left, words it lacks struck out in red), with the exact {{.Measure}} of the two computed for this page; at most {{.Options.MaxMembers}} removed members per cluster and {{.Options.MaxRunes}} characters per text. <button id="expand-all">expand all texts</button></p>
{{if .Omitted}}<p class="warn">{{.Omitted}} {{plural .Omitted "pair is" "pairs are"}} listed without texts: the report's size cap of {{.Options.MaxBytes}} bytes was reached.</p>{{end}}
{{range .Clusters}}<section class="cluster" data-cluster="{{id .ID}}">
<h3>Cluster <code>{{id .ID}}</code>: {{.Size}} documents{{if .Random}} <span class="note">(random sample)</span>{{else}} <span class="note">(among the largest)</span>{{end}}</h3>
<p class="note">kept <code>{{id .Kept}}</code>{{if gt .Size (len .Members)}}; showing {{len .Pairs}} of {{.Size | printf "%d"}} members' removed copies (the first by id){{end}}</p>
{{range .Pairs}}{{template "pair" .}}{{end}}
</section>
{{else}}<p>No clusters: nothing was removed.</p>
{{end}}

<h2 id="near">Near the threshold</h2>
{{if .Sims}}<div class="near" id="lowest-verified"><h3>The {{len .Lowest}} removed pairs with the lowest similarity</h3>
<p class="note">Verified pairs just above the threshold: if these are not duplicates to you, raise --threshold.</p>
{{range .Lowest}}{{template "pair" .Pair}}{{else}}<p>none</p>{{end}}</div>
<div class="near" id="highest-rejected"><h3>The {{len .Highest}} rejected candidates with the highest similarity</h3>
<p class="note">Candidates that verification turned down: if these are duplicates to you, lower --threshold.</p>
{{range .Highest}}{{template "pair" .Pair}}{{else}}<p>none</p>{{end}}</div>
{{else}}<p>This output has no similarities.json.</p>{{end}}

<script>
(function () {
  function setOpen(p, open) {
    p.classList.toggle('open', open);
    var b = p.querySelector('button.toggle');
    if (b) { b.textContent = open ? 'collapse' : 'show the whole texts'; }
  }
  document.querySelectorAll('button.toggle').forEach(function (b) {
    b.addEventListener('click', function () { var p = b.closest('.pair'); setOpen(p, !p.classList.contains('open')); });
  });
  var all = document.getElementById('expand-all');
  if (all) {
    all.addEventListener('click', function () { document.querySelectorAll('.pair.long').forEach(function (p) { setOpen(p, true); }); });
  }
})();
</script>
</body>
</html>
{{define "pair"}}<div class="pair{{if .Long}} long{{end}}" data-a="{{id .A}}" data-b="{{id .B}}">
<div class="pairhead"><code>{{id .A}}</code> ↔ <code>{{id .B}}</code>{{if .Sim}}: similarity <b class="sim">{{.Sim}}</b>{{end}}{{if .Note}}; {{.Note}}{{end}}{{if and .HaveA .HaveB (not .Missing) (not .Diffed)}}; <span class="note">too different to mark word by word</span>{{end}}</div>
{{if .Missing}}<p class="note">{{.Missing}}</p>{{else}}<div class="sides">
<div><div class="side-label">{{id .A}}{{if .CutA}} (cut){{end}}</div><div class="text kept" data-id="{{id .A}}">{{if .HaveA}}{{range .Left}}{{if segClass .Op}}<span class="{{segClass .Op}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}{{else}}<i>text not found in the outputs</i>{{end}}</div></div>
<div><div class="side-label">{{id .B}}{{if .CutB}} (cut){{end}}</div><div class="text removed" data-id="{{id .B}}">{{if .HaveB}}{{range .Right}}{{if segClass .Op}}<span class="{{segClass .Op}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}{{else}}<i>text not found in the outputs</i>{{end}}</div></div>
</div>{{if .Long}}<button class="toggle">show the whole texts</button>{{end}}{{end}}
</div>
{{end}}`
