package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neardup/neardup/index"
)

// Server answers queries over HTTP against the current generation of an index:
//
//	POST /query   body: JSONL documents (one or many); answer: one JSONL line per
//	              document, in order (AppendResult). 400 when a line is not a document,
//	              413 when the body or the document count is over the limits.
//	GET /healthz  200 "ok generation N documents D"
//
// Every request is answered from one generation, named in the X-Neardup-Generation
// header. Reload opens a newer generation and swaps it in atomically: requests that
// started on the old one finish on it, and its files are closed after them.
type Server struct {
	Dir     string
	Fields  Fields
	MaxBody int64 // bytes
	MaxDocs int   // documents per request
	Log     *log.Logger

	cur atomic.Pointer[generation]
	mu  sync.Mutex // serializes Reload
}

// generation is an open engine; its in-flight requests hold users for reading, and
// closing it takes it for writing, after them.
type generation struct {
	engine *Engine
	gen    int
	users  sync.RWMutex
}

// NewServer opens the index at dir.
func NewServer(ctx context.Context, dir string) (*Server, error) {
	s := &Server{Dir: dir, Fields: Fields{ID: "id", Text: "text"}, MaxBody: 16 << 20, MaxDocs: 10000}
	if _, err := s.Reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Generation is the generation now served.
func (s *Server) Generation() int { return s.cur.Load().gen }

// Reload opens the index's current generation if it is newer than the one served, and
// swaps it in; it reports whether it did. On an error the old generation stays.
func (s *Server) Reload(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := index.ReadManifest(ctx, s.Dir)
	if err != nil {
		return false, err
	}
	old := s.cur.Load()
	if old != nil && m.Generation <= old.gen {
		return false, nil
	}
	e, err := Open(ctx, s.Dir)
	if err != nil {
		return false, err
	}
	g := &generation{engine: e, gen: e.Index.Manifest.Generation}
	s.cur.Store(g)
	if old != nil {
		go func() { old.users.Lock(); old.engine.Close(); old.users.Unlock() }()
	}
	return true, nil
}

// Watch reloads every interval until ctx ends, logging failures.
func (s *Server) Watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ok, err := s.Reload(ctx)
			if err != nil && s.Log != nil {
				s.Log.Printf("reload %s: %v (still serving generation %d)", s.Dir, err, s.Generation())
			} else if ok && s.Log != nil {
				s.Log.Printf("serving generation %d of %s", s.Generation(), s.Dir)
			}
		}
	}
}

// acquire returns the current generation, counted as in use until release.
func (s *Server) acquire() *generation {
	for {
		g := s.cur.Load()
		g.users.RLock()
		if s.cur.Load() == g {
			return g
		}
		g.users.RUnlock() // swapped meanwhile: it is closing or closed
	}
}

// Handler is the HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		g := s.acquire()
		defer g.users.RUnlock()
		fmt.Fprintf(w, "ok generation %d documents %d\n", g.gen, g.engine.Index.Manifest.Documents)
	})
	mux.HandleFunc("/query", s.query)
	return mux
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b := append([]byte(`{"error":`), appendJSONString(nil, msg)...)
	w.Write(append(b, "}\n"...))
}

func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		httpError(w, http.StatusMethodNotAllowed, "POST JSONL documents to /query")
		return
	}
	body := http.MaxBytesReader(w, r.Body, s.MaxBody)
	var docs []Doc
	err := ReadDocs(body, "body", s.Fields, func(d Doc) error {
		if d.Err != nil {
			return d.Err
		}
		if len(docs) == s.MaxDocs {
			return errTooMany
		}
		docs = append(docs, d)
		return nil
	})
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes", s.MaxBody))
		return
	case errors.Is(err, errTooMany):
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("over %d documents in one request", s.MaxDocs))
		return
	case err != nil:
		httpError(w, http.StatusBadRequest, err.Error())
		return
	case len(docs) == 0:
		httpError(w, http.StatusBadRequest, `empty body: send JSONL documents, e.g. {"id":"a","text":"..."}`)
		return
	}
	g := s.acquire()
	defer g.users.RUnlock()
	var out bytes.Buffer
	for _, d := range docs {
		ms, err := g.engine.Near(d.Text)
		if err != nil {
			if s.Log != nil {
				s.Log.Printf("query: %v", err)
			}
			httpError(w, http.StatusInternalServerError, err.Error())
			return
		}
		out.Write(AppendResult(nil, d, ms, nil))
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("X-Neardup-Generation", strconv.Itoa(g.gen))
	w.Write(out.Bytes())
}

var errTooMany = errors.New("too many documents")
