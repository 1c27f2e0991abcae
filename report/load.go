package report

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/internal/ordered"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/jsonl"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/io/textfile"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/shingleset"
)

// cluster is one line of clusters.jsonl; Members is cut to what the report shows.
type cluster struct {
	ID      string   `json:"cluster"`
	Size    int      `json:"size"`
	Kept    string   `json:"kept"`
	Members []string `json:"members"`
	Random  bool     `json:"-"` // chosen by the seeded sample, not by size
	prio    uint64   // the seeded sample's order: a hash of the seed and ID
}

// removedDoc is what the report keeps of a removed.jsonl line.
type removedDoc struct {
	Cluster    string
	Similarity float64 // to its verified neighbour, as the pipeline measured
}

// readJSONFile decodes a whole small JSON file.
func readJSONFile(ctx context.Context, path string, v any) error {
	r, err := files.Open(ctx, path)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := json.NewDecoder(bufio.NewReader(r)).Decode(v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// eachLine calls fn with every line of a JSONL file and its 1-based number; fn must not
// keep the line.
func eachLine(ctx context.Context, path string, fn func(line []byte, num int64) error) error {
	r, err := files.Open(ctx, path)
	if err != nil {
		return err
	}
	defer r.Close()
	// The line is valid only during fn: one buffer for the whole file, not an
	// allocation per line.
	lr := textfile.NewReader(r)
	for {
		line, num, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if len(line) > 0 {
			if err := fn(line, num); err != nil {
				return fmt.Errorf("%s:%d: %w", path, num, err)
			}
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// sampleClusters streams clusters.jsonl and picks n clusters: the largest fifth of n by
// size (ties by id), then clusters chosen by a hash of seed and cluster id, so the
// sample is the same on every run and does not depend on the file's order. Each keeps
// at most maxMembers removed members (the first by id) besides its kept one. largest
// are the nTop largest clusters, and all counts the clusters.
func sampleClusters(ctx context.Context, path string, n, nTop, maxMembers int, seed int64) (sample, largest []cluster, all int, err error) {
	nLargest := min(n, max(1, (n+4)/5))
	var big, rnd []cluster
	var seedBytes [8]byte
	binary.LittleEndian.PutUint64(seedBytes[:], uint64(seed))
	prio := func(id string) uint64 { return xxhash.Sum64String(string(seedBytes[:]) + id) }
	bigger := func(a, b cluster) int { return cmp.Or(cmp.Compare(b.Size, a.Size), cmp.Compare(a.ID, b.ID)) }
	sampled := func(a, b cluster) int { return cmp.Or(cmp.Compare(a.prio, b.prio), cmp.Compare(a.ID, b.ID)) }
	nBig := max(nLargest, nTop)
	var head []string
	err = eachLine(ctx, path, func(line []byte, _ int64) error {
		all++
		// Most clusters enter neither list, and their id and size, which the pipeline
		// writes first, tell so without decoding the members.
		var ok bool
		if head, ok = jsonl.Leading(head[:0], line, "cluster", "size"); ok {
			if size, err := strconv.Atoi(head[1]); err == nil {
				h := cluster{ID: head[0], Size: size, prio: prio(head[0])}
				if !takes(big, h, nBig, bigger) && !takes(rnd, h, n, sampled) {
					return nil
				}
			}
		}
		var c cluster
		if err := json.Unmarshal(line, &c); err != nil {
			return fmt.Errorf("invalid cluster line: %w", err)
		}
		c.prio = prio(c.ID)
		c.Members = shownMembers(c, maxMembers)
		// Both lists are kept sorted and cut, so memory stays at 2n clusters.
		big = insertCut(big, c, nBig, bigger)
		rnd = insertCut(rnd, c, n, sampled)
		return nil
	})
	if err != nil {
		return nil, nil, 0, err
	}
	out := slices.Clone(big[:min(len(big), nLargest)])
	for _, c := range rnd {
		if len(out) >= n {
			break
		}
		if !slices.ContainsFunc(out, func(b cluster) bool { return b.ID == c.ID }) {
			c.Random = true
			out = append(out, c)
		}
	}
	return out, big[:min(len(big), nTop)], all, nil
}

// shownMembers is the kept member followed by at most maxMembers removed ones.
func shownMembers(c cluster, maxMembers int) []string {
	out := []string{c.Kept}
	for _, m := range c.Members {
		if len(out) > maxMembers {
			break
		}
		if m != c.Kept {
			out = append(out, m)
		}
	}
	return out
}

// takes reports whether insertCut would keep c in the list.
func takes(list []cluster, c cluster, k int, order func(a, b cluster) int) bool {
	i, _ := slices.BinarySearchFunc(list, c, order)
	return i < k
}

// insertCut inserts c into the sorted list and keeps the first k.
func insertCut(list []cluster, c cluster, k int, order func(a, b cluster) int) []cluster {
	i, _ := slices.BinarySearchFunc(list, c, order)
	if i >= k {
		return list
	}
	list = slices.Insert(list, i, c)
	if len(list) > k {
		list = list[:k]
	}
	return list
}

// texts holds the documents the page shows: their texts, cut to a number of runes, and
// for removed ones what removed.jsonl says of them.
type texts struct {
	text    map[string]string
	cut     map[string]bool     // the text was longer than shown
	hashes  map[string][]uint64 // shingle hashes of the whole text
	removed map[string]removedDoc
	key     func(string) string // what the word diff compares
	// containment: pairs are shown at their containment (--measure containment).
	containment bool
}

// loadTexts finds the texts of the wanted ids: removed ones in removed.jsonl, kept ones
// in keptTexts when it is set (Options.KeptTexts), otherwise in the kept file. A kept
// document without an id field is named by its input file and line, which the kept file
// no longer tells: those are read from the input named by the id. An id found nowhere
// has no text.
func loadTexts(ctx context.Context, dir, keptTexts string, st *stats, want map[string]bool, maxRunes int, sh *shingleset.Shingler) (*texts, error) {
	t := &texts{text: map[string]string{}, cut: map[string]bool{}, hashes: map[string][]uint64{}, removed: map[string]removedDoc{}}
	add := func(id, text string) {
		t.hashes[id], _ = sh.Hashes(text)
		t.text[id] = cut(text, maxRunes)
		t.cut[id] = len(t.text[id]) < len(text)
	}
	idField, textField := orDefault(st.Parameters.IDField, "id"), orDefault(st.Parameters.TextField, "text")
	var head []string
	err := eachLine(ctx, files.Join(dir, RemovedFile), func(line []byte, _ int64) error {
		// Only the id first: decoding every removed line whole cost more than the rest
		// of the page, and the id leads the line as the pipeline writes it.
		var ok bool
		if head, ok = jsonl.Leading(head[:0], line, "id"); ok {
			if !want[head[0]] {
				return nil
			}
		} else if id, _, err := jsonl.ParseID(line, "id"); err == nil && !want[id] {
			return nil
		}
		var r struct {
			ID         string          `json:"id"`
			Cluster    string          `json:"cluster"`
			Similarity float64         `json:"similarity"`
			Record     json.RawMessage `json:"record"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("invalid removed line: %w", err)
		}
		if !want[r.ID] {
			return nil
		}
		t.removed[r.ID] = removedDoc{Cluster: r.Cluster, Similarity: r.Similarity}
		var s string
		if json.Unmarshal(r.Record, &s) == nil { // a text line
			add(r.ID, s)
			return nil
		}
		rec, err := jsonl.ParseRecord(r.Record, idField, textField)
		if err != nil {
			return fmt.Errorf("field record: %w", err)
		}
		add(r.ID, rec.Text)
		return nil
	})
	if err != nil {
		return nil, err
	}
	kept, err := keptFile(ctx, dir)
	if err != nil {
		return nil, err
	}
	if keptTexts != "" {
		kept = keptTexts
	}
	// The kept file first, then the inputs named by generated ids still missing.
	srcs := []string{kept}
	for _, in := range st.Inputs {
		for id := range want {
			if _, ok := t.text[id]; !ok && strings.HasPrefix(id, in+":") {
				srcs = append(srcs, in)
				break
			}
		}
	}
	for _, f := range srcs {
		if f == keptTexts || f == files.Join(dir, sink.KeptJSONL) {
			if err := t.loadKeptJSONL(ctx, f, want, idField, textField, st.Parameters.MaxRecordBytes, add); err != nil {
				return nil, err
			}
			continue
		}
		var readErr error
		source.ReadFile(ctx, f, source.Config{IDField: idField, TextField: textField, MaxRecordBytes: st.Parameters.MaxRecordBytes}, func(d record.Doc) {
			if _, done := t.text[d.ID]; want[d.ID] && !done {
				add(d.ID, d.Text)
			}
		}, func(r record.Rejected) {
			if r.Line == 0 && readErr == nil {
				readErr = fmt.Errorf("read %s: %s", f, r.Reason)
			}
		})
		if readErr != nil && f == kept {
			return nil, readErr
		}
	}
	return t, nil
}

// loadKeptJSONL is the kept-file pass for kept.jsonl: only the id of each line is parsed
// (jsonl.ParseID), and the whole record only when the id is wanted, so the pass costs a
// fraction of decoding every kept text. The ids are parsed on a pool of one goroutine per
// core, a block of lines at a time (the kept file is nearly the whole corpus); the
// wanted lines are decoded here, in file order. A line
// without an id is skipped: its id was FILE:LINE of the input, which the input pass after
// this one reads.
func (t *texts) loadKeptJSONL(ctx context.Context, path string, want map[string]bool, idField, textField string, limit int64, add func(id, text string)) error {
	r, err := files.Open(ctx, path)
	if err != nil {
		return err
	}
	defer r.Close()
	pool := ordered.New(runtime.GOMAXPROCS(0), 1, func() func(keptBlock) keptBlock {
		return func(b keptBlock) keptBlock { return b.find(path, idField, want) }
	})
	defer pool.Close()
	// A kept record is within the run's record size limit; a longer line (the file was
	// changed since) fails the pass without being held.
	blocks := textfile.NewBlocks(r, 1<<20).Limit(int(cmp.Or(limit, source.DefaultMaxRecordBytes)))
	var fail error
	deliver := func(b keptBlock) {
		defer blocks.Release(b.data)
		if fail = cmp.Or(fail, b.err); fail != nil {
			return
		}
		for _, h := range b.hits {
			if _, done := t.text[h.id]; done {
				continue
			}
			rec, err := jsonl.ParseRecord(h.line, idField, textField)
			if err != nil {
				fail = fmt.Errorf("%s:%d: invalid kept line: %w", path, h.num, err)
				return
			}
			add(h.id, rec.Text)
		}
	}
	for fail == nil {
		data, first, err := blocks.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail = fmt.Errorf("read %s: %w", path, err)
			break
		}
		pool.Add(keptBlock{data: data, first: first}, deliver)
	}
	pool.Flush(deliver)
	return fail
}

// keptBlock is a block of kept lines and, once found, its lines with a wanted id.
type keptBlock struct {
	data  []byte
	first int64 // line number of data's first line
	hits  []keptHit
	err   error // the block's first invalid line
}

type keptHit struct {
	id   string
	line []byte // within data
	num  int64
}

// find parses the id of each line of the block and keeps the lines whose id is wanted.
func (b keptBlock) find(path, idField string, want map[string]bool) keptBlock {
	data, num := b.data, b.first
	for len(data) > 0 {
		end := bytes.IndexByte(data, '\n') + 1
		if end == 0 {
			end = len(data)
		}
		line := data[:end]
		data = data[end:]
		if len(bytes.TrimSpace(line)) > 0 {
			id, hasID, err := jsonl.ParseID(line, idField)
			if err != nil {
				b.err = fmt.Errorf("%s:%d: invalid kept line: %w", path, num, err)
				return b
			}
			if hasID && want[id] {
				b.hits = append(b.hits, keptHit{id: id, line: line, num: num})
			}
		}
		num++
	}
	return b
}

// keptFile is the kept output present in dir.
func keptFile(ctx context.Context, dir string) (string, error) {
	for _, name := range []string{sink.KeptJSONL, sink.KeptText, sink.KeptParquet} {
		p := files.Join(dir, name)
		if r, err := files.Open(ctx, p); err == nil {
			r.Close()
			return p, nil
		}
	}
	return "", errors.New(dir + ": no kept.jsonl, kept.txt or kept.parquet")
}

// cut shortens s to at most n runes.
func cut(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
