package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/neardup/neardup/index/query"
)

// runQuery answers, per JSONL document of --input (or stdin), its verified
// near-duplicates in an index, one JSONL line each, in input order.
func runQuery(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	dir := fs.String("index", "", "the index to query (neardup index; format 2, see --compact)")
	input := fs.String("input", "", "JSONL file of documents (default: stdin)")
	idField := fs.String("id-field", "id", "JSON field holding the document id (missing: FILE:LINE)")
	textField := fs.String("text-field", "text", "JSON field holding the text")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: neardup query --index IDX [--input FILE.jsonl] < docs.jsonl\n\n"+
			"Writes one line per input document: {\"id\":…,\"near\":[{\"id\":…,\"jaccard\":…},…]}, or\n"+
			"{\"line\":N,\"error\":…} for a line that is not a document.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageError{fmt.Errorf("--index is required")}
	}
	ctx := context.Background()
	e, err := query.Open(ctx, *dir)
	if err != nil {
		return err
	}
	defer e.Close()
	in, name := io.Reader(os.Stdin), "stdin"
	if *input != "" {
		f, err := os.Open(*input)
		if err != nil {
			return err
		}
		defer f.Close()
		in, name = f, *input
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	var line []byte
	err = query.ReadDocs(in, name, query.Fields{ID: *idField, Text: *textField}, func(d query.Doc) error {
		var ms []query.Match
		var qerr error
		if d.Err == nil {
			if ms, qerr = e.Near(d.Text); qerr != nil {
				return qerr
			}
		}
		line = query.AppendResult(line[:0], d, ms, nil)
		_, werr := w.Write(line)
		return werr
	})
	return errors.Join(err, w.Flush())
}

// runServe answers queries over HTTP (query.Server) until interrupted.
func runServe(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	dir := fs.String("index", "", "the index to serve (format 2)")
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on")
	reload := fs.Duration("reload", 2*time.Second, "how often to look for a new index generation (also on SIGHUP)")
	maxBody := fs.Int64("max-body", query.DefaultMaxBody, "largest request body in bytes (413 above)")
	bodyTimeout := fs.Duration("body-timeout", query.DefaultBodyTimeout, "longest time to receive one request's body (408 after it)")
	maxInflight := fs.Int64("max-inflight", query.DefaultMaxInflight, "most bytes of request bodies held at once by all requests (503 above)")
	maxDocs := fs.Int("max-docs", 10000, "most documents in one request (413 above)")
	idField := fs.String("id-field", "id", "JSON field holding the document id")
	textField := fs.String("text-field", "text", "JSON field holding the text")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: neardup serve --index IDX --listen 127.0.0.1:PORT\n\n"+
			"POST /query with JSONL documents: one JSONL answer line per document, as neardup query\n"+
			"writes them. GET /healthz: the generation served. A new generation of the index is\n"+
			"picked up atomically; requests in flight finish on the old one.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageError{fmt.Errorf("--index is required")}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := query.NewServer(ctx, *dir)
	if err != nil {
		return err
	}
	if *bodyTimeout <= 0 || *maxInflight < 1 || *maxBody < 1 {
		return usageError{fmt.Errorf("--body-timeout, --max-inflight and --max-body must be positive")}
	}
	s.Fields, s.MaxBody, s.MaxDocs = query.Fields{ID: *idField, Text: *textField}, *maxBody, *maxDocs
	s.BodyTimeout, s.MaxInflight = *bodyTimeout, *maxInflight
	s.Log = log.New(stderr, "neardup serve: ", log.LstdFlags)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			if _, err := s.Reload(ctx); err != nil {
				s.Log.Printf("reload: %v", err)
			}
		}
	}()
	go s.Watch(ctx, *reload)
	srv := s.HTTPServer()
	s.Log.Printf("serving %s (generation %d) on http://%s", *dir, s.Generation(), ln.Addr())
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}
