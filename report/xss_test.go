package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/pipeline"
)

// hostile is a corpus whose ids and texts hold markup, script and entity payloads, each
// text with a near-copy so that both appear side by side in the diff view.
var hostile = []struct{ id, text string }{
	{`<script>window.__pwned="id-script"</script>`, `alpha beta gamma <script>window.__pwned="text-script"</script> delta epsilon zeta eta theta`},
	{`a"b'c<img src=x onerror="window.__pwned='id-img'">`, `alpha beta gamma <script>window.__pwned="text-script"</script> delta epsilon zeta eta theta iota`},
	{`&amp;lt;id&gt; & "quoted"`, `one two three <img src=x onerror="window.__pwned='text-img'"> four five &amp; six &lt;b&gt; "q" 'a' seven eight`},
	{`</code></div><b onmouseover=window.__pwned=1>x</b>`, `one two three <img src=x onerror="window.__pwned='text-img'"> four five &amp; six &lt;b&gt; "q" 'a' seven eight nine`},
}

// report.html shows ids and texts holding markup as text: the served DOM has no element
// or handler from the corpus, no injected script ran, and each text and id reads back
// exactly as it is in the corpus.
func TestReportEscapesMarkupInBrowser(t *testing.T) {
	chromium(t)
	var b strings.Builder
	for _, r := range hostile {
		line, err := json.Marshal(map[string]string{"id": r.id, "text": r.text})
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	in := filepath.Join(t.TempDir(), "hostile.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(b.String()), 0o644))
	cfg := pipeline.DefaultConfig()
	cfg.Inputs = []string{in}
	cfg.Shingle.N = 2
	dir := dedup(t, cfg)
	removed := removedTexts(t, dir)
	require.Len(t, removed, 2, "each payload text has its near-copy removed")

	ctx, consoleErrors := browse(t, filepath.Join(dir, "report.html"))
	type dom struct {
		Pwned                            any
		Scripts, Images, Handlers, Bolds int
		Texts                            map[string]string // data-id -> text shown
		Labels                           []string
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[dom](`(() => {
		const handlers = [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length;
		const texts = {};
		document.querySelectorAll('section.cluster .text[data-id]').forEach(e => { texts[e.dataset.id] = e.textContent; });
		return {Pwned: window.__pwned === undefined ? null : window.__pwned,
			Scripts: document.scripts.length, Images: document.images.length, Handlers: handlers,
			Bolds: document.querySelectorAll('b[onmouseover]').length, Texts: texts,
			Labels: [...document.querySelectorAll('section.cluster .side-label')].map(e => e.textContent)};
	})()`))
	require.NoError(t, err)
	assert.Nil(t, got.Pwned, "an injected script or handler ran")
	assert.Equal(t, 1, got.Scripts, "only the page's own script")
	assert.Zero(t, got.Images, "no <img> from the corpus")
	assert.Zero(t, got.Handlers, "no on* attribute from the corpus")
	assert.Zero(t, got.Bolds)
	for _, r := range hostile {
		shown, ok := got.Texts[r.id]
		require.True(t, ok, "id %q is a data-id as it is", r.id)
		assert.Equal(t, r.text, shown, "text of %q shown as text", r.id)
		assert.Contains(t, got.Labels, r.id, "id %q labelled as text", r.id)
	}
	// Hovering and clicking what would have been injected elements runs nothing either.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		document.querySelectorAll('.text, .side-label, code').forEach(e => {
			e.dispatchEvent(new MouseEvent('mouseover', {bubbles: true})); e.click(); });
		return true; })()`))
	require.NoError(t, err)
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__pwned !== undefined`))
	require.NoError(t, err)
	assert.False(t, pwned)
	assert.Empty(t, consoleErrors(), "console errors")
}
