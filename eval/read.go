package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ReadClusters reads clusters in neardup's clusters.jsonl layout, one JSON object
// per line: {"cluster": id, "size": n, "members": [ids]} (other fields ignored).
// Lines of size 1 are singletons and left out; "size", when given, must match.
func ReadClusters(r io.Reader) (Clusters, error) {
	var out Clusters
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var c struct {
				Size    *int     `json:"size"`
				Members []string `json:"members"`
			}
			if err := json.Unmarshal(b, &c); err != nil {
				return nil, fmt.Errorf("clusters line %d: %w", line, err)
			}
			if c.Size != nil && *c.Size != len(c.Members) {
				return nil, fmt.Errorf("clusters line %d: size %d but %d members", line, *c.Size, len(c.Members))
			}
			if len(c.Members) >= 2 {
				out = append(out, c.Members)
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read clusters line %d: %w", line, err)
		}
	}
}

// ReadClustersFile reads a clusters file (see ReadClusters).
func ReadClustersFile(path string) (Clusters, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := ReadClusters(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Stats is the part of neardup's stats.json that eval reads. Parameters are kept
// loosely typed so that renamed or added fields do not break old results.
type Stats struct {
	Parameters map[string]any   `json:"parameters"`
	Counts     map[string]int64 `json:"counts"`
}

// ReadStats reads a stats.json file.
func ReadStats(path string) (*Stats, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Stats
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// IntParam returns the first of the named parameters that is a whole number.
func (s *Stats) IntParam(names ...string) (int, bool) {
	if f, ok := s.FloatParam(names...); ok && f == math.Trunc(f) {
		return int(f), true
	}
	return 0, false
}

// FloatParam returns the first of the named parameters that is a number.
func (s *Stats) FloatParam(names ...string) (float64, bool) {
	if s == nil {
		return 0, false
	}
	for _, n := range names {
		if f, ok := s.Parameters[n].(float64); ok {
			return f, true
		}
	}
	return 0, false
}

// StringParam returns the first of the named parameters that is a string.
func (s *Stats) StringParam(names ...string) (string, bool) {
	if s == nil {
		return "", false
	}
	for _, n := range names {
		if v, ok := s.Parameters[n].(string); ok {
			return v, true
		}
	}
	return "", false
}

// BoolParam returns the first of the named parameters that is a boolean.
func (s *Stats) BoolParam(names ...string) (bool, bool) {
	if s == nil {
		return false, false
	}
	for _, n := range names {
		if v, ok := s.Parameters[n].(bool); ok {
			return v, true
		}
	}
	return false, false
}

// Documents returns the number of documents the run read, if stats.json says.
func (s *Stats) Documents() (int64, bool) {
	if s == nil {
		return 0, false
	}
	for _, n := range []string{"documents_read", "documents"} {
		if v, ok := s.Counts[n]; ok {
			return v, true
		}
	}
	return 0, false
}

// resultPaths resolves --result: a directory holding clusters.jsonl (and maybe
// stats.json), or a clusters file with stats.json beside it.
func resultPaths(result string) (clusters, stats string, err error) {
	fi, err := os.Stat(result)
	if err != nil {
		return "", "", err
	}
	if fi.IsDir() {
		return filepath.Join(result, "clusters.jsonl"), filepath.Join(result, "stats.json"), nil
	}
	return result, filepath.Join(filepath.Dir(result), "stats.json"), nil
}

// sortedIDs returns the distinct ids of a clustering, sorted (for membership checks).
func (c Clusters) sortedIDs() []string {
	var ids []string
	for _, m := range c {
		ids = append(ids, m...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// unknownIDs counts ids of c absent from the sorted corpus ids, and names a few.
func unknownIDs(c Clusters, corpus []string) (int, string) {
	n := 0
	var some []string
	for _, id := range c.sortedIDs() {
		if _, found := slices.BinarySearch(corpus, id); !found {
			n++
			if len(some) < 3 {
				some = append(some, fmt.Sprintf("%q", id))
			}
		}
	}
	return n, strings.Join(some, ", ")
}
