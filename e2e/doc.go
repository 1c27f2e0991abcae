// Package e2e holds end-to-end tests that run the real neardup binary against real
// servers started as separate processes: the Prism job server (the portable runner path
// that Flink and Spark job servers share) and fake-gcs-server (the gs:// path Dataflow
// jobs use); the s3:// test serves gofakes3 on loopback from the test process itself. The binaries are built from this module and the Go module cache, so the
// tests need nothing installed beyond Go; `go test -short` skips them. The Flink and
// Spark tests also need Java: they run Beam's job servers, fetched by .ci/engines.sh,
// with SDK workers the engines start as separate processes (see docs/engines.md).
//
// The package has no non-test code; it exists only for its tests.
package e2e
