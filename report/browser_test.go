package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// requireBrowserEnv names the variable .ci/run sets: there a missing Chromium fails the
// test instead of skipping it.
const requireBrowserEnv = "NEARDUP_REQUIRE_BROWSER"

// chromium finds the browser (Debian's package "chromium"), or skips the test when it
// is absent and the run is not CI.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(requireBrowserEnv) != "" {
		t.Fatalf("no Chromium on PATH and %s is set: install it (apt-get install chromium)", requireBrowserEnv)
	}
	t.Skipf("skipping the browser test: no Chromium on PATH (apt-get install chromium; .ci/run installs it and sets %s=1 to make this a failure)", requireBrowserEnv)
	return ""
}

// browse opens file in a fresh headless Chromium (no network, a user-data-dir of its
// own) and returns the page's context and the console errors and uncaught exceptions
// seen so far.
func browse(t *testing.T, file string) (context.Context, func() []string) {
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })

	var mu sync.Mutex
	var errs []string
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				errs = append(errs, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			if d.Exception != nil {
				errs = append(errs, fmt.Sprintf("exception at %d:%d: %s %s", d.LineNumber, d.ColumnNumber, d.Text, d.Exception.Description))
			} else {
				errs = append(errs, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, d.Text))
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				errs = append(errs, fmt.Sprintf("log: %s %s", ev.Entry.Text, ev.Entry.URL))
			}
		}
	}))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+file), chromedp.WaitReady(chromedp.CSS("body"))))
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), errs...)
	}
}

// checkPage asserts what a reader relies on: no console error, the counts of stats.json,
// a sampled cluster whose removed side shows the removed text, a working toggle, and
// writes a screenshot under the test's temp dir.
func checkPage(t *testing.T, dir string) {
	ctx, consoleErrors := browse(t, filepath.Join(dir, "report.html"))

	shown, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](
		`Object.fromEntries([...document.querySelectorAll('[data-count]')].map(e => [e.dataset.count, e.textContent.trim()]))`))
	require.NoError(t, err)
	counts := readStats(t, dir)
	require.NotEmpty(t, counts)
	for name, n := range counts {
		assert.Equal(t, strconv.FormatInt(n, 10), shown[name], "count %s on the page", name)
	}
	assert.Len(t, shown, len(counts))

	// The first sampled cluster: its first removed member, as the diff view shows it.
	type diffView struct {
		Cluster, ID, Removed, Kept string
		Marked                     int
	}
	view, err := chromedp.Run(ctx, chromedp.Evaluate[diffView](`(() => {
		const c = document.querySelector('section.cluster');
		const r = c.querySelector('.text.removed'), k = c.querySelector('.text.kept');
		return {Cluster: c.dataset.cluster, ID: r.dataset.id, Removed: r.textContent, Kept: k.textContent,
			Marked: c.querySelectorAll('.text .add, .text .del').length};
	})()`))
	require.NoError(t, err)
	removed := removedTexts(t, dir)
	want, ok := removed[view.ID]
	require.True(t, ok, "the cluster %s shows %s, which removed.jsonl does not hold", view.Cluster, view.ID)
	assert.Equal(t, want, view.Removed, "the diff view shows the removed text")
	assert.NotEmpty(t, view.Kept)
	if strings.ToLower(want) != strings.ToLower(view.Kept) { // the diff ignores what normalization does
		assert.Positive(t, view.Marked, "differences are marked")
	}

	// A long pair starts collapsed and opens with its toggle.
	hasLong, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('.pair.long button.toggle')`))
	require.NoError(t, err)
	if hasLong {
		height := chromedp.Evaluate[float64](`document.querySelector('.pair.long .text').getBoundingClientRect().height`)
		before, err := chromedp.Run(ctx, height)
		require.NoError(t, err)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".pair.long button.toggle"), chromedp.NodeVisible)))
		after, err := chromedp.Run(ctx, height)
		require.NoError(t, err)
		assert.Greater(t, after, before, "the toggle shows the whole text")
	}

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	require.NoError(t, err)
	shot := filepath.Join(t.TempDir(), "report.jpeg")
	require.NoError(t, os.WriteFile(shot, png, 0o644))
	assert.Greater(t, len(png), 10_000, "a screenshot of a rendered page")
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))

	assert.Empty(t, consoleErrors(), "console errors")
}

func TestReportInBrowserSeed(t *testing.T) {
	chromium(t)
	checkPage(t, dedupSeed(t))
}

func TestReportInBrowserGenerated(t *testing.T) {
	chromium(t)
	checkPage(t, dedupGenerated(t, 3000))
}
