package minhash_test

import (
	"fmt"

	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/normalize"
	"github.com/neardup/neardup/shingle"
)

// A Signer turns a document's shingle hashes into its signature; two signatures
// estimate the documents' Jaccard similarity, which verify computes exactly. Texts that
// differ only in case and punctuation normalize to one shingle set.
func ExampleSigner() {
	signer, err := minhash.NewSigner(minhash.DefaultScheme, 1, 128)
	if err != nil {
		panic(err)
	}
	opts := shingle.Options{Kind: shingle.Word, N: 2}
	hashes := func(text string) []uint64 {
		return shingle.Hashes(normalize.Text(text, normalize.Options{StripPunct: true}), opts, minhash.DefaultHashFunc.Sum64)
	}
	a := hashes("the quick brown fox jumps over the lazy dog by the river bank today")
	b := hashes("The quick brown fox jumps over the lazy dog by the river bank, today!")
	c := hashes("the quick brown fox jumps over the lazy cat by the river bank today")

	sa, sb, sc := signer.Sign(a), signer.Sign(b), signer.Sign(c)
	fmt.Println(len(sa.Values), "values per signature")
	ab, _ := sa.Jaccard(sb)
	ac, _ := sa.Jaccard(sc)
	fmt.Printf("a~b: estimate %.2f, exact %.2f\n", ab, jaccard.Similarity(a, b))
	fmt.Printf("a~c: estimate %.2f, exact %.2f\n", ac, jaccard.Similarity(a, c))
	// Output:
	// 128 values per signature
	// a~b: estimate 1.00, exact 1.00
	// a~c: estimate 0.76, exact 0.73
}
