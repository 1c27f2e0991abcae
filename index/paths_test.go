package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A manifest is untrusted input: every hostile shard path is refused by ReadManifest
// (and so by Open, info, --against and --update-index), with an error naming the entry
// and carrying no byte of the file it points at, even when that file's size and SHA-256
// match the entry (as an attacker who knows the file can arrange).
func TestHostileManifestPaths(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "idx")
	m := build(t, dir, New(testParams, 1), testRows(20, "d"))
	good := m.Files[0]

	const secret = "SECRET-CONTENT-0123456789"
	outside := filepath.Join(root, "outside")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	secretPath := filepath.Join(outside, "secret.parquet")
	require.NoError(t, os.WriteFile(secretPath, []byte(secret+"\n"), 0o644))
	sum := sha256.Sum256([]byte(secret + "\n"))
	// Symlinks inside the index that lead out of it.
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "gen-link")))
	require.NoError(t, os.Symlink(secretPath, filepath.Join(dir, good.Path+".evil")))

	cases := []struct{ path, why string }{
		{"../outside/secret.parquet", `".." segment`},
		{secretPath, "absolute"},
		{"gen-1/../../outside/secret.parquet", `".." segment`},
		{"..", `".." segment`},
		{"gen-link/secret.parquet", "is a symlink; neardup follows no symlink inside an index"},
		{good.Path + ".evil", "is a symlink; neardup follows no symlink inside an index"},
		{"./" + good.Path, `"." segment`},
		{strings.Replace(good.Path, "/", "//", 1), "empty segment"},
		{good.Path + "/", "empty segment"},
		{"", "empty"},
		{"gs://other-bucket/idx/shard-00000.parquet", `'\' or ':'`},
		{"s3://other-bucket/shard-00000.parquet", `'\' or ':'`},
		{`C:\Windows\win.ini`, `'\' or ':'`},
		{`gen-1\..\..\outside\secret.parquet`, `'\' or ':'`},
		{"gen-1/shard\x00.parquet", "control character"},
		{"gen-1/shard\n.parquet", "control character"},
		{strings.Repeat("../", 100000) + "etc/passwd", `".." segment`},
	}
	for _, c := range cases {
		// The same path as a format 1 shard, a format 2 segment and a retired file.
		entries := []struct {
			name string
			set  func(h *Manifest)
		}{
			{"files[0] (shard 0) path ", func(h *Manifest) {
				h.Files = []FileEntry{{Shard: 0, Path: c.path, Rows: m.Documents, Bytes: int64(len(secret) + 1), SHA256: hex.EncodeToString(sum[:])}}
			}},
			{"segments[0] path ", func(h *Manifest) {
				h.FormatVersion, h.ShingleBits, h.Files = FormatSegments, 32, []FileEntry{}
				h.Segments = []SegmentEntry{{Path: c.path, Documents: m.Documents, Bytes: int64(len(secret) + 1), SHA256: hex.EncodeToString(sum[:])}}
			}},
			{"retired[0] path ", func(h *Manifest) { h.Retired = []string{c.path} }},
		}
		for _, e := range entries {
			hostile := *m
			e.set(&hostile)
			b, err := json.Marshal(&hostile)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, ManifestName), b, 0o644))
			for _, read := range []func() error{
				func() error { _, err := ReadManifest(context.Background(), dir); return err },
				func() error { _, err := Open(context.Background(), dir, testParams); return err },
			} {
				err := read()
				if !assert.Error(t, err, "%s%q: accepted", e.name, c.path) {
					continue
				}
				msg := err.Error()
				assert.True(t, strings.Contains(msg, e.name) && strings.Contains(msg, c.why),
					"%s%q: error does not name the entry and why (%s): %s", e.name, c.path, c.why, msg)
				assert.NotContains(t, msg, secret, "%s%q: error echoes file content", e.name, c.path)
				assert.LessOrEqual(t, len(msg), 1000, "%s%q: error of %d bytes", e.name, c.path, len(msg))
			}
		}
	}
}

// Plain names pass; a symlink inside the index is refused even when it leads to a file
// of the index, and so is an index directory that is itself a symlink: the index
// follows no symlink it did not create, and it creates none.
func TestPlainManifestPathsAccepted(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "idx")
	m := build(t, dir, New(testParams, 1), testRows(20, "d"))
	gen, name, _ := strings.Cut(m.Files[0].Path, "/")
	for _, p := range []string{m.Files[0].Path, "gen-000009-0000/not-yet-written.parquet", m.Files[0].Path + "/under-a-file"} {
		assert.NoError(t, CheckPath(dir, p), "%s", p)
	}
	require.NoError(t, os.Symlink(gen, filepath.Join(dir, "current")))
	assert.ErrorContains(t, CheckPath(dir, "current/"+name), `"current" is a symlink`, "a symlink inside the index")
	alias := filepath.Join(root, "alias")
	require.NoError(t, os.Symlink(dir, alias))
	want := "index " + alias + ": is a symlink (to \"" + dir + "\"); neardup follows no symlink in an index: name the directory itself"
	_, err := Open(context.Background(), alias, testParams)
	assert.EqualError(t, err, want, "an index directory that is a symlink")
	_, err = Open(context.Background(), dir, testParams)
	require.NoError(t, err)
}

// On gs:// and s3:// the same lexical rules keep a name inside the index's prefix.
func TestObjectStoreManifestPaths(t *testing.T) {
	for _, dir := range []string{"gs://bucket/indexes/a", "s3://bucket/indexes/a/"} {
		assert.NoError(t, CheckPath(dir, "gen-000001-abcd/shard-00000.parquet"), "%s", dir)
		for _, p := range []string{"../b/gen-000001-abcd/shard-00000.parquet", "/indexes/b/shard.parquet", "gs://bucket/indexes/b/x",
			"gen-1/../../b/x", "gen-1//x"} {
			assert.Error(t, CheckPath(dir, p), "%s: %q accepted", dir, p)
		}
	}
}
