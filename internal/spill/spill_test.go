package spill

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readAll returns the records a reference points at, copied.
func readAll(t *testing.T, ref string) [][]byte {
	t.Helper()
	var recs [][]byte
	if err := Read(ref, func(rec []byte) error {
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
	// Enough bytes that every partition is flushed several times, between the others'
	// buffers, records of every size including empty, and partitions that get nothing.
	for i := range 6000 {
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
		t.Fatalf("references for partitions %v, want %d partitions", paths, len(want))
	}
	files := map[string]bool{}
	for p, recs := range want {
		files[File(paths[p])] = true
		if _, extents, _ := parseRef(paths[p]); len(extents) < 2 {
			t.Fatalf("partition %d: %d extents; the test wants partitions flushed between each other's buffers", p, len(extents))
		}
		size := int64(0)
		for _, r := range recs {
			size += int64(headerBytes + len(r))
		}
		if got := Size(paths[p]); got != size {
			t.Fatalf("partition %d: Size %d, want %d", p, got, size)
		}
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
	if len(files) != 1 {
		t.Fatalf("the partitions point into %d files, want the writer's one", len(files))
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
		if f := File(paths[7]); seen[f] {
			t.Fatalf("writer %d reused %s", i, f)
		} else {
			seen[f] = true
		}
		if got := readAll(t, paths[7]); len(got) != 1 || string(got[0]) != fmt.Sprint(i) {
			t.Fatalf("writer %d: file holds %q", i, got)
		}
	}
}

// A file cut short, inside a record or at a record's end, or a record whose length
// points past its extent, is an error naming the file and the record; never fewer
// records without a word.
func TestDamagedFileIsAnError(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
		record string
	}{
		{"cut inside a record", func(b []byte) []byte { return b[:len(b)-3] }, "record 2"},
		{"cut at a record's end", func(b []byte) []byte { return b[:headerBytes+5] }, "record 2"},
		{"a length past the extent", func(b []byte) []byte { b[headerBytes+5] = 0xff; return b }, "record 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, _ := NewWriter(t.TempDir())
			w.Append(0, []byte("first"))
			w.Append(0, []byte("a record of some length"))
			refs, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			f := File(refs[0])
			b, _ := os.ReadFile(f)
			os.WriteFile(f, c.damage(b), 0o666)
			n := 0
			err = Read(refs[0], func([]byte) error { n++; return nil })
			if err == nil || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), c.record) {
				t.Fatalf("error %v after %d records, want one naming %s and %s", err, n, f, c.record)
			}
		})
	}
}

func TestMalformedReferenceIsAnError(t *testing.T) {
	for _, ref := range []string{"no-extents", "f@", "f@1+", "f@-1+2", "f@1+2,x"} {
		if err := Read(ref, func([]byte) error { return nil }); err == nil || !strings.Contains(err.Error(), "reference") {
			t.Errorf("Read(%q) = %v, want an error about the reference", ref, err)
		}
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

// TestScanOffsetsPointAtTheRecords reads every record back from the file at the offset
// Scan gave for it.
func TestScanOffsetsPointAtTheRecords(t *testing.T) {
	w, err := NewWriter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		if err := w.Append(i%4, bytes.Repeat([]byte{byte(i)}, 1+i%500)); err != nil {
			t.Fatal(err)
		}
	}
	refs, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range refs {
		f, err := os.Open(File(ref))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		if err := Scan(ref, func(rec []byte, off int64) error {
			got := make([]byte, len(rec))
			if _, err := f.ReadAt(got, off); err != nil {
				return err
			}
			if !bytes.Equal(got, rec) {
				return fmt.Errorf("record %d: the file at offset %d holds other bytes", n, off)
			}
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if n != 750 {
			t.Fatalf("%d records, want 750", n)
		}
	}
}

// TestReleaseFreesTheDiskSpace writes a partition large enough to span many blocks,
// releases it, and checks that the file's allocated blocks shrank while its size and the
// other partition's records stayed.
func TestReleaseFreesTheDiskSpace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Release frees space on Linux only")
	}
	w, err := NewWriter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte{7}, 60<<10)
	for range 64 {
		if err := w.Append(0, big); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Append(1, []byte("kept")); err != nil {
		t.Fatal(err)
	}
	refs, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	blocks := func() (int64, int64) {
		var st syscall.Stat_t
		if err := syscall.Stat(File(refs[0]), &st); err != nil {
			t.Fatal(err)
		}
		return st.Blocks * 512, st.Size
	}
	before, size := blocks()
	Release(refs[0])
	after, sizeAfter := blocks()
	if sizeAfter != size {
		t.Fatalf("size %d after Release, was %d", sizeAfter, size)
	}
	if after > before-Size(refs[0])/2 {
		t.Fatalf("%d bytes allocated after releasing %d of %d: nothing was freed", after, Size(refs[0]), before)
	}
	if got := readAll(t, refs[1]); len(got) != 1 || string(got[0]) != "kept" {
		t.Fatalf("the other partition reads %q after Release", got)
	}
}

// TestOneLargeExtentReadsLikeSmallOnes writes one partition alone, so that its flushed
// buffers merge into one extent larger than a read buffer, and checks its records.
func TestOneLargeExtentReadsLikeSmallOnes(t *testing.T) {
	w, err := NewWriter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	for i := range 3000 {
		rec := bytes.Repeat([]byte{byte(i)}, i%500)
		if err := w.Append(4, rec); err != nil {
			t.Fatal(err)
		}
		want = append(want, rec)
	}
	refs, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, extents, _ := parseRef(refs[4]); len(extents) != 1 || extents[0].n <= flushBytes {
		t.Fatalf("extents %v: the test wants one larger than %d bytes", extents, flushBytes)
	}
	got := readAll(t, refs[4])
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("record %d differs", i)
		}
	}
}

// openIn counts this process's open files under dir.
func openIn(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, dir) {
			n++
		}
	}
	return n
}

// TestReadersKeepFewFilesOpen reads the references of more writers than stay open,
// twice over, and checks that the records come back, that no more than keepOpen files
// stay open, and that CloseFiles closes them all.
func TestReadersKeepFewFilesOpen(t *testing.T) {
	dir := t.TempDir()
	var refs []string
	for i := range keepOpen + 20 {
		w, err := NewWriter(dir)
		if err != nil {
			t.Fatal(err)
		}
		for p := range 3 {
			if err := w.Append(p, fmt.Appendf(nil, "writer %d partition %d", i, p)); err != nil {
				t.Fatal(err)
			}
		}
		r, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r[0], r[1], r[2])
	}
	for range 2 {
		for i, ref := range refs {
			got := readAll(t, ref)
			if want := fmt.Sprintf("writer %d partition %d", i/3, i%3); len(got) != 1 || string(got[0]) != want {
				t.Fatalf("reference %d reads %q, want %q", i, got, want)
			}
		}
	}
	if n := openIn(t, dir); n > keepOpen {
		t.Fatalf("%d spill files open after reading, want at most %d", n, keepOpen)
	}
	CloseFiles()
	if n := openIn(t, dir); n != 0 {
		t.Fatalf("%d spill files open after CloseFiles", n)
	}
}
