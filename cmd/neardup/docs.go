package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/jsonl"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/pipeline"
)

// doc is a document loaded whole for the small interactive verbs (compare, sign).
type doc struct {
	id, text string
	hashes   []uint64 // sorted distinct shingle hashes
}

// loadDocs reads a JSONL file into memory. Unlike dedup, which rejects bad records and
// goes on, these verbs stop at the first bad record: they are for inspecting small files.
func loadDocs(ctx context.Context, path, idField, textField string) ([]doc, error) {
	r, err := files.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var docs []doc
	seen := map[string]int{}
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s:%d: %w", path, line, err)
		}
		if len(strings.TrimSpace(string(raw))) > 0 {
			rec, perr := jsonl.ParseRecord(raw, idField, textField)
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, perr)
			}
			id := rec.ID
			if !rec.HasID {
				id = path + ":" + strconv.Itoa(line)
			}
			if prev, dup := seen[id]; dup {
				return nil, fmt.Errorf("%s:%d: duplicate id %q (first on line %d)", path, line, id, prev)
			}
			seen[id] = line
			docs = append(docs, doc{id: id, text: rec.Text})
		}
		if err != nil {
			return docs, nil
		}
	}
}

// shingleDocs fills in each document's shingle-hash set as the pipeline computes it.
func shingleDocs(docs []doc, cfg *pipeline.Config) error {
	sh, err := cfg.Shingler()
	if err != nil {
		return usageError{err}
	}
	for i := range docs {
		docs[i].hashes, _ = sh.Hashes(docs[i].text)
	}
	return nil
}

func newSigner(cfg *pipeline.Config) (*minhash.Signer, error) {
	if cfg.NumPerm > lsh.MaxNumPerm {
		return nil, fmt.Errorf("--num-perm: must be from 2 to %d, got %d", lsh.MaxNumPerm, cfg.NumPerm)
	}
	return minhash.NewSigner(cfg.Scheme, cfg.Seed, cfg.NumPerm)
}
