package runlock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"cloud.google.com/go/storage"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/gcsx"
	"google.golang.org/api/googleapi"
)

type gcsLock struct {
	client *storage.Client
	obj    *storage.ObjectHandle
	gen    int64
}

// acquireGCS creates the lock object only if it does not exist. When it exists, its
// holder is read; a holder that ran on this host and whose pid is gone is stale, and its
// object is deleted only if it is still that generation, then creation is tried again.
func acquireGCS(ctx context.Context, path string, me Holder) (*gcsLock, *Holder, error) {
	bucket, object, err := gcsx.ParseObject(path)
	if err != nil {
		return nil, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	client, err := gcsx.NewClient(ctx, storage.ScopeReadWrite)
	if err != nil {
		return nil, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	l := &gcsLock{client: client, obj: client.Bucket(bucket).Object(object)}
	var stale *Holder
	for attempt := 0; attempt < 3; attempt++ {
		w := l.obj.If(storage.Conditions{DoesNotExist: true}).NewWriter(ctx)
		w.ContentType = "application/json"
		_, werr := w.Write(encode(me))
		if werr = errors.Join(werr, w.Close()); werr == nil {
			l.gen = w.Attrs().Generation
			return l, stale, nil
		}
		if !isStatus(werr, http.StatusPreconditionFailed) {
			client.Close()
			return nil, nil, fmt.Errorf("create lock %s: %w", path, werr)
		}
		h, gen, err := l.read(ctx)
		if errors.Is(err, storage.ErrObjectNotExist) {
			continue // released meanwhile
		}
		if err != nil {
			client.Close()
			return nil, nil, fmt.Errorf("read lock %s: %w", path, err)
		}
		if h.Host != me.Host || Alive(h.PID) {
			client.Close()
			return nil, nil, &HeldError{Path: path, Holder: h}
		}
		// Deleting that generation, not the name, removes nothing if another run took
		// the stale lock over meanwhile (its lock is a newer generation). A
		// GenerationMatch condition says the same on GCS, but emulators ignore it on
		// delete.
		afterStaleRead()
		err = l.obj.Generation(gen).Delete(ctx)
		if err != nil && !isStatus(err, http.StatusPreconditionFailed) && !errors.Is(err, storage.ErrObjectNotExist) {
			client.Close()
			return nil, nil, fmt.Errorf("remove stale lock %s: %w", path, err)
		}
		stale = &h
	}
	client.Close()
	return nil, nil, fmt.Errorf("lock %s: the object keeps changing", path)
}

func (l *gcsLock) read(ctx context.Context) (Holder, int64, error) {
	r, err := l.obj.NewReader(ctx)
	if err != nil {
		return Holder{}, 0, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return Holder{}, 0, err
	}
	h, _ := decode(b)
	return h, r.Attrs.Generation, nil
}

func isStatus(err error, code int) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == code
}

func (l *gcsLock) check(ctx context.Context) error {
	attrs, err := l.obj.Attrs(ctx)
	if err != nil {
		return err
	}
	if attrs.Generation != l.gen {
		return fmt.Errorf("generation %d, this run wrote %d", attrs.Generation, l.gen)
	}
	return nil
}

func (l *gcsLock) release(ctx context.Context) error {
	defer l.client.Close()
	err := l.obj.If(storage.Conditions{GenerationMatch: l.gen}).Delete(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil
	}
	return err
}
