// Package s3fs is the s3:// filesystem of Beam's registry (the Beam Go SDK's own, adapted
// for the one thing its constructor does not let a caller set: how the AWS SDK client
// logs) and the S3 client every s3:// access of neardup uses (NewClient).
//
// The client is configured the usual AWS way, through the AWS SDK's default chain
// (config.LoadDefaultConfig): credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY,
// a profile, or an instance role; the region from AWS_REGION; another S3-compatible
// endpoint (MinIO, Ceph, R2) from AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL). No
// path-style option is set: an endpoint given as an IP address is addressed path-style
// by the AWS SDK's endpoint rules, a host name virtual-host style (BUCKET.HOST).
// S3 has no rename: files.Rename copies server-side and deletes, as on gs://.
package s3fs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/fsx"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
)

func init() {
	filesystem.Register("s3", func(ctx context.Context) filesystem.Interface {
		c, err := NewClient(ctx)
		return &fs{client: c, err: err}
	})
}

// NewClient returns an S3 client from the AWS SDK's default configuration whose log
// lines go to neardup's log (slog's default logger: the run's beam.log during a run),
// never raw to stderr, and which does not log that a response carried no checksum to
// validate (every object of a server without response checksums, and every multipart
// object on S3): the payload is still validated whenever the response has a checksum.
func NewClient(ctx context.Context) (*s3.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(slogLogger{}))
	if err != nil {
		return nil, fmt.Errorf("s3: load the AWS configuration: %w", err)
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.DisableLogOutputChecksumValidationSkipped = true
	}), nil
}

// slogLogger is the AWS SDK's logging.Logger on slog's default logger.
type slogLogger struct{}

func (slogLogger) Logf(c logging.Classification, format string, v ...any) {
	level := slog.LevelDebug
	if c == logging.Warn {
		level = slog.LevelWarn
	}
	slog.Log(context.Background(), level, "aws sdk: "+fmt.Sprintf(format, v...))
}

// fs is Beam's s3 filesystem (sdks/go/pkg/beam/io/filesystem/s3) on NewClient's client.
// err, when the client could not be made, is every operation's error.
type fs struct {
	client *s3.Client
	err    error
}

func (f *fs) Close() error { return nil }

// List returns the s3:// paths of the objects matching glob (a pattern of
// filepath.Match over keys).
func (f *fs) List(ctx context.Context, glob string) ([]string, error) {
	bucket, pattern, err := f.parse(glob)
	if err != nil {
		return nil, err
	}
	pages := s3.NewListObjectsV2Paginator(f.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(bucket), Prefix: aws.String(fsx.GetPrefix(pattern)),
	})
	var uris []string
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", glob, err)
		}
		for _, o := range page.Contents {
			key := aws.ToString(o.Key)
			match, err := filepath.Match(pattern, key)
			if err != nil {
				return nil, fmt.Errorf("invalid key pattern: %s", pattern)
			}
			if match {
				uris = append(uris, "s3://"+bucket+"/"+key)
			}
		}
	}
	return uris, nil
}

func (f *fs) OpenRead(ctx context.Context, filename string) (io.ReadCloser, error) {
	bucket, key, err := f.parse(filename)
	if err != nil {
		return nil, err
	}
	out, err := f.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, fmt.Errorf("error getting object %s: %v", filename, err)
	}
	return out.Body, nil
}

// OpenWrite streams to a new object (replacing one of that key), through the AWS SDK's
// multipart uploader; the object exists once Close has returned nil.
func (f *fs) OpenWrite(ctx context.Context, filename string) (io.WriteCloser, error) {
	bucket, key, err := f.parse(filename)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	w := &writer{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		_, w.err = manager.NewUploader(f.client).Upload(ctx, &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(key), Body: pr,
		})
		pr.CloseWithError(w.err)
	}()
	return w, nil
}

type writer struct {
	pw   *io.PipeWriter
	done chan struct{}
	err  error
}

func (w *writer) Write(p []byte) (int, error) { return w.pw.Write(p) }

func (w *writer) Close() error {
	if err := w.pw.Close(); err != nil {
		return err
	}
	<-w.done
	return w.err
}

func (f *fs) head(ctx context.Context, filename string) (*s3.HeadObjectOutput, error) {
	bucket, key, err := f.parse(filename)
	if err != nil {
		return nil, err
	}
	out, err := f.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, fmt.Errorf("error getting metadata for object %s: %w", filename, err)
	}
	return out, nil
}

func (f *fs) Size(ctx context.Context, filename string) (int64, error) {
	out, err := f.head(ctx, filename)
	if err != nil {
		return -1, err
	}
	if out.ContentLength == nil {
		return -1, fmt.Errorf("content length for object %s was nil", filename)
	}
	return *out.ContentLength, nil
}

func (f *fs) LastModified(ctx context.Context, filename string) (time.Time, error) {
	out, err := f.head(ctx, filename)
	if err != nil {
		return time.Time{}, err
	}
	return aws.ToTime(out.LastModified), nil
}

func (f *fs) Remove(ctx context.Context, filename string) error {
	bucket, key, err := f.parse(filename)
	if err != nil {
		return err
	}
	if _, err := f.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
		return fmt.Errorf("error deleting object %s: %v", filename, err)
	}
	return nil
}

func (f *fs) Copy(ctx context.Context, oldpath, newpath string) error {
	fromBucket, fromKey, err := f.parse(oldpath)
	if err != nil {
		return err
	}
	toBucket, toKey, err := f.parse(newpath)
	if err != nil {
		return err
	}
	if _, err := f.client.CopyObject(ctx, &s3.CopyObjectInput{
		Bucket: aws.String(toBucket), Key: aws.String(toKey), CopySource: aws.String(fromBucket + "/" + fromKey),
	}); err != nil {
		return fmt.Errorf("error copying object %s: %v", oldpath, err)
	}
	return nil
}

// parse splits s3://BUCKET/KEY, or returns the client's error.
func (f *fs) parse(uri string) (bucket, key string, err error) {
	if f.err != nil {
		return "", "", f.err
	}
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("error parsing S3 uri %s: %v", uri, err)
	case u.Scheme != "s3":
		return "", "", fmt.Errorf("error parsing S3 uri %s: %w", uri, errors.New("scheme must be 's3'"))
	case u.Host == "":
		return "", "", fmt.Errorf("error parsing S3 uri %s: %w", uri, errors.New("bucket must not be empty"))
	}
	if u.Path != "" {
		key = u.Path[1:]
	}
	return u.Host, key, nil
}

var (
	_ filesystem.LastModifiedGetter = (*fs)(nil)
	_ filesystem.Remover            = (*fs)(nil)
	_ filesystem.Copier             = (*fs)(nil)
)
