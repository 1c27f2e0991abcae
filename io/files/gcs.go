package files

import (
	"context"
	"fmt"

	"cloud.google.com/go/storage"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/gcsx"
)

// composeLimit is how many sources one GCS compose request takes.
const composeLimit = 32

// composeGCS makes dst the concatenation of srcs, all gs:// objects in dst's bucket, with
// GCS's server-side compose: no byte passes through this process. Each request appends
// up to composeLimit-1 sources to what dst holds so far. The sources are deleted after.
func composeGCS(ctx context.Context, dst string, srcs []string) error {
	bucket, name, err := gcsx.ParseObject(dst)
	if err != nil {
		return err
	}
	objects := make([]string, len(srcs))
	for i, s := range srcs {
		b, o, err := gcsx.ParseObject(s)
		if err != nil {
			return err
		}
		if b != bucket {
			return fmt.Errorf("compose %s: %s is in another bucket", dst, s)
		}
		objects[i] = o
	}
	client, err := gcsx.NewClient(ctx, storage.ScopeReadWrite)
	if err != nil {
		return fmt.Errorf("compose %s: %w", dst, err)
	}
	defer client.Close()
	bkt := client.Bucket(bucket)
	target := bkt.Object(name)
	for done := 0; done < len(objects); {
		var handles []*storage.ObjectHandle
		if done > 0 {
			handles = append(handles, target)
		}
		for done < len(objects) && len(handles) < composeLimit {
			handles = append(handles, bkt.Object(objects[done]))
			done++
		}
		if _, err := target.ComposerFrom(handles...).Run(ctx); err != nil {
			return fmt.Errorf("compose %s: %w", dst, err)
		}
	}
	for _, s := range srcs {
		if err := Remove(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// sameGCSBucket reports whether every path is a gs:// object of one bucket.
func sameGCSBucket(paths ...string) bool {
	var first string
	for i, p := range paths {
		bucket, _, err := gcsx.ParseObject(p)
		if err != nil || i > 0 && bucket != first {
			return false
		}
		first = bucket
	}
	return true
}
