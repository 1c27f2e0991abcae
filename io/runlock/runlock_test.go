package runlock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"

	"cloud.google.com/go/storage"
	"github.com/neardup/neardup/internal/objstoretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// store is an output directory on one of the object stores, served on loopback by the
// fake servers the e2e tests use, with direct access to the lock object.
type store struct {
	dir string
	put func(t *testing.T, b []byte)
	get func(t *testing.T) ([]byte, bool)
}

const bucket = "neardup-lock"

func gcsStore(t *testing.T) store {
	srv, env, _ := objstoretest.GCS(t, bucket)
	objstoretest.Setenv(t, env)
	obj := srv.Client().Bucket(bucket).Object("out/" + Name)
	return store{
		dir: "gs://" + bucket + "/out",
		put: func(t *testing.T, b []byte) {
			w := obj.NewWriter(context.Background())
			_, err := w.Write(b)
			require.NoError(t, errors.Join(err, w.Close()))
		},
		get: func(t *testing.T) ([]byte, bool) {
			r, err := obj.NewReader(context.Background())
			if errors.Is(err, storage.ErrObjectNotExist) {
				return nil, false
			}
			require.NoError(t, err)
			defer r.Close()
			b, err := io.ReadAll(r)
			require.NoError(t, err)
			return b, true
		},
	}
}

func s3Store(t *testing.T) store {
	backend, env := objstoretest.S3(t, bucket)
	objstoretest.Setenv(t, env)
	key := "out/" + Name
	return store{
		dir: "s3://" + bucket + "/out",
		put: func(t *testing.T, b []byte) {
			_, err := backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
		},
		get: func(t *testing.T) ([]byte, bool) {
			obj, err := backend.GetObject(bucket, key, nil)
			if err != nil {
				return nil, false
			}
			defer obj.Contents.Close()
			b, err := io.ReadAll(obj.Contents)
			require.NoError(t, err)
			return b, true
		},
	}
}

// deadPID is the pid of a process that has ended (and been reaped).
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	require.False(t, Alive(cmd.Process.Pid))
	return cmd.Process.Pid
}

func forEachStore(t *testing.T, test func(t *testing.T, s store)) {
	for name, open := range map[string]func(*testing.T) store{"gs": gcsStore, "s3": s3Store} {
		t.Run(name, func(t *testing.T) { test(t, open(t)) })
	}
}

// A live holder's lock is refused, naming it; released, it can be taken again.
func TestObjectStoreLiveHolderRefused(t *testing.T) {
	forEachStore(t, func(t *testing.T, s store) {
		ctx := context.Background()
		l, stale, err := Acquire(ctx, s.dir, Me("tmp-a"))
		require.NoError(t, err)
		assert.Nil(t, stale)
		b, ok := s.get(t)
		require.True(t, ok)
		h, _ := decode(b)
		assert.Equal(t, "tmp-a", h.TempDir)

		_, _, err = Acquire(ctx, s.dir, Me("tmp-b"))
		var held *HeldError
		require.ErrorAs(t, err, &held)
		assert.Equal(t, os.Getpid(), held.Holder.PID)
		assert.Equal(t, "tmp-a", held.Holder.TempDir)
		require.NoError(t, l.Check(ctx))

		require.NoError(t, l.Release(ctx))
		_, ok = s.get(t)
		assert.False(t, ok, "released")
		l, _, err = Acquire(ctx, s.dir, Me("tmp-b"))
		require.NoError(t, err)
		require.NoError(t, l.Release(ctx))
	})
}

// The lock of a run that ran on this host and is gone is taken over, and the dead run
// is named; one of a run on another host, whose liveness cannot be told, is refused.
func TestObjectStoreDeadHolderTakenOver(t *testing.T) {
	forEachStore(t, func(t *testing.T, s store) {
		ctx := context.Background()
		dead := Me("tmp-dead")
		dead.PID = deadPID(t)
		s.put(t, encode(dead))
		l, stale, err := Acquire(ctx, s.dir, Me("tmp-new"))
		require.NoError(t, err)
		require.NotNil(t, stale)
		assert.Equal(t, dead.PID, stale.PID)
		b, _ := s.get(t)
		h, _ := decode(b)
		assert.Equal(t, "tmp-new", h.TempDir, "the lock is this run's")
		require.NoError(t, l.Release(ctx))

		elsewhere := dead
		elsewhere.Host = "another-host"
		s.put(t, encode(elsewhere))
		_, _, err = Acquire(ctx, s.dir, Me("tmp-new"))
		var held *HeldError
		require.ErrorAs(t, err, &held)
		assert.Equal(t, "another-host", held.Holder.Host)
	})
}

// A lock replaced behind a run's back fails its Check before the commit.
func TestObjectStoreCheckSeesReplacement(t *testing.T) {
	forEachStore(t, func(t *testing.T, s store) {
		ctx := context.Background()
		l, _, err := Acquire(ctx, s.dir, Me("tmp-a"))
		require.NoError(t, err)
		s.put(t, encode(Me("tmp-intruder")))
		require.Error(t, l.Check(ctx))
	})
}

// Runs racing for the lock, free or held by a dead run, never both get it: exactly one
// wins, the others are refused naming the winner.
func TestObjectStoreRace(t *testing.T) {
	for _, start := range []string{"free", "stale"} {
		t.Run(start, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, s store) {
				ctx := context.Background()
				if start == "stale" {
					dead := Me("tmp-dead")
					dead.PID = deadPID(t)
					s.put(t, encode(dead))
				}
				const runs = 8
				var wg sync.WaitGroup
				errs := make([]error, runs)
				for i := range runs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, _, errs[i] = Acquire(ctx, s.dir, Me(fmt.Sprintf("tmp-%d", i)))
					}()
				}
				wg.Wait()
				var winners []int
				for i, err := range errs {
					var held *HeldError
					switch {
					case err == nil:
						winners = append(winners, i)
					case errors.As(err, &held):
					default:
						t.Errorf("run %d: %v", i, err)
					}
				}
				require.Len(t, winners, 1, "winners %v, errors %v", winners, errs)
				b, _ := s.get(t)
				h, _ := decode(b)
				assert.Equal(t, fmt.Sprintf("tmp-%d", winners[0]), h.TempDir, "the lock names the winner")
				for i, err := range errs {
					var held *HeldError
					if errors.As(err, &held) {
						assert.Equal(t, fmt.Sprintf("tmp-%d", winners[0]), held.Holder.TempDir, "run %d is told the winner", i)
					}
				}
			})
		})
	}
}

// Two runs take over one stale lock, interleaved: the second reads the dead holder, the
// first takes the lock over, then the second acts on what it read. The second must
// remove or replace only the object it read (the generation on gs://, If-Match on s3://),
// so it is refused naming the first, whose lock stays.
func TestObjectStoreStaleTakeoverInterleaved(t *testing.T) {
	forEachStore(t, func(t *testing.T, s store) {
		ctx := context.Background()
		dead := Me("tmp-dead")
		dead.PID = deadPID(t)
		s.put(t, encode(dead))
		var first *Lock
		staleRead = func() {
			staleRead = nil // the first run takes the lock over without pausing
			var err error
			first, _, err = Acquire(ctx, s.dir, Me("tmp-first"))
			require.NoError(t, err)
		}
		defer func() { staleRead = nil }()
		_, _, err := Acquire(ctx, s.dir, Me("tmp-second"))
		require.NotNil(t, first, "the hook ran")
		var held *HeldError
		require.ErrorAs(t, err, &held, "the second run must not take a lock the first holds")
		assert.Equal(t, "tmp-first", held.Holder.TempDir)
		b, ok := s.get(t)
		require.True(t, ok)
		h, _ := decode(b)
		assert.Equal(t, "tmp-first", h.TempDir)
		require.NoError(t, first.Check(ctx), "the first run's lock is intact")
		require.NoError(t, first.Release(ctx))
	})
}
