package source

import (
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/stretchr/testify/assert"

	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/record"
)

func TestMain(m *testing.M) { prismtest.Main(m) }

func TestReadPipeline(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.jsonl", []byte("{\"id\": \"D1\", \"text\": \"red blue green\"}\n\nnot json\n{\"id\": \"D2\", \"text\": \"bad \xff\"}\n"))
	b := write(t, dir, "b.jsonl.gz", gz(t, "{\"text\": \"no id\"}\n{\"id\": 3}\n"))
	missing := filepath.Join(dir, "gone.jsonl")

	p, s := beam.NewPipelineWithRoot()
	docs, rej, counts := Read(s, []string{a, b, missing}, Config{})
	passert.Equals(s, docs,
		record.Doc{ID: "D1", File: a, Line: 1, Text: "red blue green"},
		record.Doc{ID: "D2", File: a, Line: 4, Text: "bad \uFFFD"},
		record.Doc{ID: b + ":1", File: b, Line: 1, Text: "no id"},
	)
	passert.Equals(s, rej,
		record.Rejected{File: a, Line: 2, Reason: "empty line"},
		record.Rejected{File: a, Line: 3, Reason: "invalid JSON: invalid character 'o' in literal null at offset 1"},
		record.Rejected{File: b, Line: 2, Reason: `field "text": missing`},
		record.Rejected{File: missing, Line: 0, Reason: OpenErrorPrefix + "open " + missing + ": open " + missing + ": no such file or directory"},
	)
	counters := tallytest.Run(t, p, s, counts)
	assert.Equal(t, map[string]int64{"documents_read": 3, "records_rejected": 4, "invalid_utf8_replaced": 1,
		"input_ranges": 3, "unsplittable_files": 1, "damaged_files": 1}, counters)
}
