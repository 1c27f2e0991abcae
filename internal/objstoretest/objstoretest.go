// Package objstoretest serves S3 and GCS emulators (gofakes3, fake-gcs-server) on
// loopback for tests, each with one empty bucket, and points the AWS SDK's default
// configuration and the GCS client (so Beam's s3:// and gs:// filesystems) at them.
package objstoretest

import (
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// S3 serves an S3 emulator with the empty bucket until the test ends. It returns the
// backend, for putting and reading objects directly, and the environment (KEY=VALUE) that
// points the AWS SDK at it; pass the environment to a child process or to Setenv.
func S3(t testing.TB, bucket string) (*s3mem.Backend, []string) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	addr := serve(t, gofakes3.New(backend).Server())
	none := filepath.Join(t.TempDir(), "none")
	return backend, []string{
		"AWS_ENDPOINT_URL_S3=http://" + addr, // an IP address: path-style requests
		"AWS_ACCESS_KEY_ID=neardup", "AWS_SECRET_ACCESS_KEY=neardup", "AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE=" + none, "AWS_SHARED_CREDENTIALS_FILE=" + none,
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// GCS serves a GCS emulator with the bucket, holding objects, until the test ends. It
// returns the server, the environment that points the GCS client at it, and the count of
// compose requests it has received.
func GCS(t testing.TB, bucket string, objects ...fakestorage.Object) (*fakestorage.Server, []string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The emulator routes downloads by host name, so it must know its address first.
	gcs, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", NoListener: true,
		PublicHost: ln.Addr().String(), InitialObjects: objects})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gcs.Stop)
	gcs.CreateBucket(bucket)
	composes := new(atomic.Int64)
	handler := gcs.HTTPHandler()
	serveOn(t, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/compose") {
			composes.Add(1)
		}
		handler.ServeHTTP(w, r)
	}))
	return gcs, []string{"STORAGE_EMULATOR_HOST=" + ln.Addr().String()}, composes
}

// Setenv sets the environment env (KEY=VALUE) for the rest of the test.
func Setenv(t *testing.T, env []string) {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

func serve(t testing.TB, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, ln, h)
	return ln.Addr().String()
}

func serveOn(t testing.TB, ln net.Listener, h http.Handler) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}
