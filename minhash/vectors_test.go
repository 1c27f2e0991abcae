package minhash

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/repotest"
)

// The structure of the datasketch 2.0 conformance vectors under
// testdata/conformance/datasketch/ (relative to the module root).

type inputSet struct {
	Name     string   `json:"name"`
	Elements []string `json:"elements"`
}

type permVector struct {
	Scheme  Scheme   `json:"scheme"`
	Seed    int64    `json:"seed"`
	NumPerm int      `json:"num_perm"`
	A       []uint64 `json:"a"`
	B       []uint64 `json:"b"`
}

type sigVector struct {
	Scheme     Scheme   `json:"scheme"`
	Seed       int64    `json:"seed"`
	NumPerm    int      `json:"num_perm"`
	Set        string   `json:"set"`
	Hashvalues []uint64 `json:"hashvalues"`
	IsEmpty    bool     `json:"is_empty"`
	Count      float64  `json:"count"`
}

type jaccardVector struct {
	Scheme  Scheme  `json:"scheme"`
	Seed    int64   `json:"seed"`
	NumPerm int     `json:"num_perm"`
	A       string  `json:"a"`
	B       string  `json:"b"`
	Jaccard float64 `json:"jaccard"`
	Exact   float64 `json:"exact_set_jaccard"`
}

type mergeVector struct {
	Scheme      Scheme   `json:"scheme"`
	Seed        int64    `json:"seed"`
	NumPerm     int      `json:"num_perm"`
	A           string   `json:"a"`
	B           string   `json:"b"`
	Union       []uint64 `json:"union_hashvalues"`
	UnionCount  float64  `json:"union_count"`
	EqualsUnion bool     `json:"equals_signature_of_set_union"`
}

type pipelineVector struct {
	Scheme   Scheme   `json:"scheme"`
	Seed     int64    `json:"seed"`
	NumPerm  int      `json:"num_perm"`
	Element  string   `json:"element"`
	BytesHex string   `json:"bytes_hex"`
	Hash     uint64   `json:"hash"`
	Fmix     *uint64  `json:"fmix"`
	Permuted []uint64 `json:"permuted"`
}

type sha1Vector struct {
	BytesHex string `json:"bytes_hex"`
	SHA1Hex  string `json:"sha1_hex"`
	Hash32   uint64 `json:"sha1_hash32"`
	Hash64   uint64 `json:"sha1_hash64"`
	Fmix32   uint64 `json:"fmix32_of_sha1_hash32"`
	Fmix64   uint64 `json:"fmix64_of_sha1_hash64"`
}

type fmixPair struct {
	In  uint64 `json:"in"`
	Out uint64 `json:"out"`
}

type minhashVectors struct {
	InputSets    []inputSet       `json:"input_sets"`
	Permutations []permVector     `json:"permutations"`
	Signatures   []sigVector      `json:"signatures"`
	Jaccard      []jaccardVector  `json:"jaccard"`
	Merge        []mergeVector    `json:"merge"`
	Pipeline     []pipelineVector `json:"single_element_pipeline"`
	SHA1Hash     struct {
		Vectors []sha1Vector `json:"vectors"`
	} `json:"sha1_hash"`
	Fmix struct {
		Fmix32 []fmixPair `json:"fmix32"`
		Fmix64 []fmixPair `json:"fmix64"`
	} `json:"fmix"`
}

type leanEncoding struct {
	Bytesize int    `json:"bytesize"`
	Hex      string `json:"hex"`
}

type leanVector struct {
	Scheme     Scheme       `json:"scheme"`
	Seed       int64        `json:"seed"`
	NumPerm    int          `json:"num_perm"`
	Elements   []string     `json:"elements"`
	Hashvalues []uint64     `json:"hashvalues"`
	Native     leanEncoding `json:"byteorder_native"`
	Little     leanEncoding `json:"byteorder_little"`
	Big        leanEncoding `json:"byteorder_big"`
	PickleHex  string       `json:"pickle_state_hex"`
}

type serializationVectors struct {
	Vectors               []leanVector `json:"vectors"`
	LegacyRoundtripScheme Scheme       `json:"legacy_roundtrip_scheme"`
}

func loadJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(repotest.Conformance(t, name))
	require.NoError(t, err, "datasketch conformance vectors")
	require.NoError(t, json.Unmarshal(b, v), name)
}

func loadMinhashVectors(t testing.TB) *minhashVectors {
	var v minhashVectors
	loadJSON(t, "minhash_vectors.json", &v)
	require.NotEmpty(t, v.Signatures)
	return &v
}

// elementBytes is the conventions' element.encode('utf-8'): Go strings from JSON are UTF-8.
func elementBytes(elems []string) [][]byte {
	out := make([][]byte, len(elems))
	for i, e := range elems {
		out[i] = []byte(e)
	}
	return out
}
