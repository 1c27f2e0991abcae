package spill

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
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

// A buffer that cannot be appended (its directory is gone) fails a later Append or
// Close with an error naming the file; nothing reports success over lost records.
func TestFailedAppendIsReported(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spill")
	w, err := NewWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	rec := bytes.Repeat([]byte("x"), 1000)
	var appendErr error
	for i := 0; i < 4*flushBytes/len(rec) && appendErr == nil; i++ {
		appendErr = w.Append(3, rec)
	}
	paths, closeErr := w.Close()
	if closeErr == nil || paths != nil {
		t.Fatalf("Close = %v, %v; want an error", paths, closeErr)
	}
	for _, err := range []error{appendErr, closeErr} {
		if err != nil && !strings.Contains(err.Error(), filepath.Join(dir, "")) {
			t.Fatalf("error %q does not name the file", err)
		}
	}
	if err := w.Append(3, rec); err == nil {
		t.Fatal("Append after Close succeeded")
	}
}

// TestDroppedWriterEndsItsGoroutines drops writers without closing them (an error path
// of a bundle) and expects their appending goroutines to end.
func TestDroppedWriterEndsItsGoroutines(t *testing.T) {
	dir := t.TempDir()
	before := runtime.NumGoroutine()
	for range 50 {
		w, err := NewWriter(dir)
		if err != nil {
			t.Fatal(err)
		}
		w.Append(1, []byte("never closed"))
	}
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines left after dropping 50 writers (%d before)", n, before)
	}
}

// Records built in place by Extend come back whole and in order, among records added by
// Append to the same partition: each holds whole items (here 5-byte items "i0042"), a
// record ends once it reaches recordBytes, and Append and Close end an open one.
func TestExtendBuildsWholeRecords(t *testing.T) {
	w, err := NewWriter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][]string{} // by partition: every item and appended record, in order
	for i := range 60000 {
		p := i % 4
		if i%9999 == 0 {
			rec := fmt.Sprintf("whole record %d", i)
			if err := w.Append(p, []byte(rec)); err != nil {
				t.Fatal(err)
			}
			want[p] = append(want[p], rec)
			continue
		}
		item := fmt.Sprintf("i%04d", i%10000)
		if err := w.Extend(p, func(b []byte) []byte { return append(b, item...) }); err != nil {
			t.Fatal(err)
		}
		want[p] = append(want[p], item)
	}
	paths, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	for p, items := range want {
		var got []string
		for _, rec := range readAll(t, paths[p]) {
			if strings.HasPrefix(string(rec), "whole") {
				got = append(got, string(rec))
				continue
			}
			if len(rec)%5 != 0 || len(rec) > recordBytes+5 {
				t.Fatalf("partition %d: a record of %d bytes", p, len(rec))
			}
			for i := 0; i < len(rec); i += 5 {
				got = append(got, string(rec[i:i+5]))
			}
		}
		if !slices.Equal(got, items) {
			t.Fatalf("partition %d: %d items and records back, want %d (or a difference in order)", p, len(got), len(items))
		}
	}
}
