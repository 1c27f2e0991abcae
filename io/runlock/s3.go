package runlock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/neardup/neardup/io/s3fs"
)

// s3Lock is the lock object on s3://, created with S3's conditional write (If-None-Match:
// *), the does-not-exist precondition gs:// has. The client is the one the s3://
// filesystem uses (s3fs.NewClient), so the lock lives where the outputs do.
type s3Lock struct {
	client      *s3.Client
	bucket, key string
	etag        string
}

func acquireS3(ctx context.Context, path string, me Holder) (*s3Lock, *Holder, error) {
	bucket, key, ok := strings.Cut(strings.TrimPrefix(path, "s3://"), "/")
	if !ok || bucket == "" || key == "" {
		return nil, nil, fmt.Errorf("lock %s: not an s3://BUCKET/KEY path", path)
	}
	client, err := s3fs.NewClient(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	l := &s3Lock{client: client, bucket: bucket, key: key}
	var stale *Holder
	for attempt := 0; attempt < 3; attempt++ {
		out, err := l.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(encode(me)),
			ContentType: aws.String("application/json"), IfNoneMatch: aws.String("*"),
		})
		if err == nil {
			l.etag = aws.ToString(out.ETag)
			return l, stale, nil
		}
		if !s3Status(err, http.StatusPreconditionFailed) && !s3Status(err, http.StatusConflict) {
			return nil, nil, fmt.Errorf("create lock %s: %w", path, err)
		}
		h, etag, err := l.read(ctx)
		if s3Status(err, http.StatusNotFound) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read lock %s: %w", path, err)
		}
		if h.Host != me.Host || Alive(h.PID) {
			return nil, nil, &HeldError{Path: path, Holder: h}
		}
		afterStaleRead()
		// Replace the stale lock only if it is still the object read (If-Match): of runs
		// racing to take it over, one succeeds and the others see its lock next time.
		out, err = l.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(encode(me)),
			ContentType: aws.String("application/json"), IfMatch: aws.String(etag),
		})
		if err == nil {
			l.etag = aws.ToString(out.ETag)
			return l, &h, nil
		}
		if !s3Status(err, http.StatusPreconditionFailed) && !s3Status(err, http.StatusConflict) && !s3Status(err, http.StatusNotFound) {
			return nil, nil, fmt.Errorf("replace stale lock %s: %w", path, err)
		}
		stale = &h
	}
	return nil, nil, fmt.Errorf("lock %s: the object keeps changing", path)
}

// read returns the lock's holder and the ETag of the object it was read from.
func (l *s3Lock) read(ctx context.Context) (Holder, string, error) {
	out, err := l.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(l.bucket), Key: aws.String(l.key)})
	if err != nil {
		return Holder{}, "", err
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return Holder{}, "", err
	}
	h, _ := decode(b)
	return h, aws.ToString(out.ETag), nil
}

func (l *s3Lock) check(ctx context.Context) error {
	out, err := l.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(l.bucket), Key: aws.String(l.key)})
	if err != nil {
		return err
	}
	if got := aws.ToString(out.ETag); l.etag != "" && got != l.etag {
		return fmt.Errorf("ETag %s, this run wrote %s", got, l.etag)
	}
	return nil
}

func (l *s3Lock) release(ctx context.Context) error {
	_, err := l.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(l.bucket), Key: aws.String(l.key)})
	if s3Status(err, http.StatusNotFound) {
		return nil
	}
	return err
}

func s3Status(err error, code int) bool {
	var re *smithyhttp.ResponseError
	return err != nil && errors.As(err, &re) && re.HTTPStatusCode() == code
}
