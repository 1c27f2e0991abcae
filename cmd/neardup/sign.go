package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/neardup/neardup/pipeline"
)

type signLine struct {
	ID        string `json:"id"`
	Signature string `json:"signature"`
}

// runSign writes {"id", "signature"} per document, the signature being the hex of
// datasketch's LeanMinHash bytes in '<' order, so Python can read it with
// LeanMinHash.deserialize(bytes.fromhex(s)).
func runSign(args []string, stdout, _ io.Writer) error {
	cfg := pipeline.DefaultConfig()
	fs := flag.NewFlagSet("sign", flag.ContinueOnError)
	methodFlags(fs, &cfg)
	idField, textField := fileFlags(fs, "sign")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	path, err := oneFile(fs)
	if err != nil {
		return err
	}
	if err := cfg.Shingle.Validate(); err != nil {
		return usageError{fmt.Errorf("--ngram: %w", err)}
	}
	signer, err := newSigner(&cfg)
	if err != nil {
		return usageError{err}
	}
	docs, err := loadDocs(context.Background(), path, *idField, *textField)
	if err != nil {
		return err
	}
	if err := shingleDocs(docs, &cfg); err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	for _, d := range docs {
		b, err := signer.Sign(d.hashes).MarshalLean('<')
		if err != nil {
			return fmt.Errorf("sign %q: %w", d.id, err)
		}
		if err := enc.Encode(signLine{ID: d.id, Signature: hex.EncodeToString(b)}); err != nil {
			return err
		}
	}
	return w.Flush()
}
