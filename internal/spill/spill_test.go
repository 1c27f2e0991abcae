package spill

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// readAll returns the records of path, copied.
func readAll(t *testing.T, path string) [][]byte {
	t.Helper()
	var recs [][]byte
	if err := Read(path, func(rec []byte) error {
		recs = append(recs, bytes.Clone(rec))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestRecordsComeBackByPartitionInOrder(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][][]byte{}
	// Enough bytes that partition 0 is flushed to its file several times, records of
	// every size including empty, and partitions that get nothing.
	for i := range 3000 {
		p := i % 3 * 5
		rec := bytes.Repeat([]byte{byte(i)}, i%700)
		if err := w.Append(p, rec); err != nil {
			t.Fatal(err)
		}
		want[p] = append(want[p], rec)
	}
	paths, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(want) {
		t.Fatalf("files for partitions %v, want %d partitions", paths, len(want))
	}
	for p, recs := range want {
		got := readAll(t, paths[p])
		if len(got) != len(recs) {
			t.Fatalf("partition %d: %d records, want %d", p, len(got), len(recs))
		}
		for i := range recs {
			if !bytes.Equal(got[i], recs[i]) {
				t.Fatalf("partition %d record %d differs", p, i)
			}
		}
	}
}

func TestWritersNeverShareAFile(t *testing.T) {
	dir := t.TempDir()
	seen := map[string]bool{}
	for i := range 20 {
		w, err := NewWriter(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append(7, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		paths, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if seen[paths[7]] {
			t.Fatalf("writer %d reused %s", i, paths[7])
		}
		seen[paths[7]] = true
		if got := readAll(t, paths[7]); len(got) != 1 || string(got[0]) != fmt.Sprint(i) {
			t.Fatalf("writer %d: file holds %q", i, got)
		}
	}
}

func TestTruncatedFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	w, _ := NewWriter(dir)
	w.Append(0, []byte("a record of some length"))
	paths, _ := w.Close()
	b, _ := os.ReadFile(paths[0])
	os.WriteFile(paths[0], b[:len(b)-3], 0o666)
	err := Read(paths[0], func([]byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), paths[0]) || !strings.Contains(err.Error(), "record 1") {
		t.Fatalf("error %v, want one naming the file and record 1", err)
	}
}

func TestEmptyWriterMakesNoFile(t *testing.T) {
	dir := t.TempDir()
	w, _ := NewWriter(dir)
	paths, err := w.Close()
	if err != nil || len(paths) != 0 {
		t.Fatalf("Close = %v, %v; want no files", paths, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d files left in the directory", len(entries))
	}
}
