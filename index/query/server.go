package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
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
//	              413 when the body or the document count is over the limits, 408 when
//	              the body does not arrive within BodyTimeout, 503 when the bodies being
//	              read and answered hold MaxInflight bytes or the index is gone.
//	GET /healthz  200 "ok generation N documents D", or 503 naming what is wrong
//
// Every request is answered from one generation, named in the X-Neardup-Generation
// header. Reload opens a newer generation and swaps it in atomically: requests that
// started on the old one finish on it, and its files are closed after them.
type Server struct {
	Dir     string
	Fields  Fields
	MaxBody int64 // bytes
	MaxDocs int   // documents per request
	// BodyTimeout bounds the time to receive one request's body.
	BodyTimeout time.Duration
	// MaxInflight bounds the bytes of request bodies held at once, by all requests.
	MaxInflight int64
	Log         *log.Logger

	cur      atomic.Pointer[generation]
	mu       sync.Mutex // serializes Reload
	inflight atomic.Int64
	// unhealthy, when set, says why the generation served is no longer the index's: the
	// index was removed, or its current manifest cannot be opened.
	unhealthy atomic.Pointer[string]
}

// generation is an open engine; its in-flight requests hold users for reading, and
// closing it takes it for writing, after them.
type generation struct {
	engine   *Engine
	gen      int
	manifest []byte // as encoded: a manifest that differs is another generation or index
	users    sync.RWMutex
}

// Default bounds of a Server.
const (
	DefaultMaxBody     = 16 << 20
	DefaultBodyTimeout = 60 * time.Second
	DefaultMaxInflight = 256 << 20
)

// NewServer opens the index at dir.
func NewServer(ctx context.Context, dir string) (*Server, error) {
	s := &Server{Dir: dir, Fields: Fields{ID: "id", Text: "text"}, MaxBody: DefaultMaxBody, MaxDocs: 10000,
		BodyTimeout: DefaultBodyTimeout, MaxInflight: DefaultMaxInflight}
	if _, err := s.Reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// HTTPServer is the http.Server that serves s: headers within 10 s, idle connections
// closed after a minute (bodies are bounded by the handler: BodyTimeout, MaxInflight).
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		ErrorLog: s.Log}
}

// Generation is the generation now served.
func (s *Server) Generation() int { return s.cur.Load().gen }

// Reload opens the index's current manifest if it is not the one served (a newer
// generation, or another index put in the place of the one served), and swaps it in; it
// reports whether it did. On an error the old generation stays, and the server reports
// itself unhealthy until a Reload succeeds.
func (s *Server) Reload(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok, err := s.reload(ctx)
	if err != nil && s.cur.Load() != nil {
		msg := fmt.Sprintf("generation %d of %s is no longer the index's: %v", s.Generation(), s.Dir, err)
		s.unhealthy.Store(&msg)
	} else if err == nil {
		s.unhealthy.Store(nil)
	}
	return ok, err
}

func (s *Server) reload(ctx context.Context) (bool, error) {
	m, err := index.ReadManifest(ctx, s.Dir)
	if err != nil {
		return false, err
	}
	enc, err := m.Encode()
	if err != nil {
		return false, err
	}
	old := s.cur.Load()
	if old != nil && bytes.Equal(enc, old.manifest) {
		return false, nil
	}
	e, err := Open(ctx, s.Dir)
	if err != nil {
		return false, err
	}
	g := &generation{engine: e, gen: e.Index.Manifest.Generation}
	if g.manifest, err = e.Index.Manifest.Encode(); err != nil { // Open may have read a newer one
		e.Close()
		return false, err
	}
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
				s.Log.Printf("reload %s: %v (generation %d answers nothing: unhealthy)", s.Dir, err, s.Generation())
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
		if why := s.unhealthy.Load(); why != nil {
			httpError(w, http.StatusServiceUnavailable, *why)
			return
		}
		g := s.acquire()
		defer g.users.RUnlock()
		fmt.Fprintf(w, "ok generation %d documents %d\n", g.gen, g.engine.Index.Manifest.Documents)
	})
	mux.HandleFunc("/query", s.query)
	return mux
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(code)
	b := append([]byte(`{"error":`), appendJSONString(nil, msg)...)
	w.Write(append(b, "}\n"...))
}

// budget counts the body bytes a request has read against the server's MaxInflight,
// failing a read that would go over it; release gives them back.
type budget struct {
	r    io.Reader
	s    *Server
	held int64
}

var errBusy = errors.New("server busy")

func (b *budget) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		if b.s.inflight.Add(int64(n)) > b.s.MaxInflight {
			b.s.inflight.Add(-int64(n))
			return 0, errBusy
		}
		b.held += int64(n)
	}
	return n, err
}

func (b *budget) release() { b.s.inflight.Add(-b.held) }

func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		httpError(w, http.StatusMethodNotAllowed, "POST JSONL documents to /query")
		return
	}
	if why := s.unhealthy.Load(); why != nil {
		httpError(w, http.StatusServiceUnavailable, *why)
		return
	}
	if s.BodyTimeout > 0 {
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.BodyTimeout))
	}
	body := &budget{r: http.MaxBytesReader(w, r.Body, s.MaxBody), s: s}
	defer body.release()
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
	case errors.Is(err, errBusy):
		httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("server busy: the requests in flight hold %d bytes of bodies (--max-inflight); retry", s.MaxInflight))
		return
	case errors.Is(err, os.ErrDeadlineExceeded):
		httpError(w, http.StatusRequestTimeout, fmt.Sprintf("body not received within %s (--body-timeout)", s.BodyTimeout))
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
