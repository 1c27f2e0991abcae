package commit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/neardup/neardup/io/files"
)

// FollowUpName is the file in a commit's temporary directory naming work that commits
// with the outputs, such as an index's new generation (SetFollowUp). The commit runs it
// right after its switch and before it ends, and Recover runs it again for a commit cut
// short after its switch: it happens if and only if the outputs are published. Its
// handler must be idempotent.
const FollowUpName = "follow-up.json"

type followUp struct {
	Kind string `json:"kind"`
	What string `json:"what"` // what the handler commits, for messages
	Data []byte `json:"data"` // the handler's, as it gave them
}

var (
	handlersMu sync.Mutex
	handlers   = map[string]func(ctx context.Context, data []byte) error{}
)

// Handle registers the handler of follow-ups of kind (at init).
func Handle(kind string, fn func(ctx context.Context, data []byte) error) {
	handlersMu.Lock()
	defer handlersMu.Unlock()
	handlers[kind] = fn
}

// FollowUpError is the error of a follow-up that failed after the outputs were
// published: the commit of the outputs itself succeeded.
type FollowUpError struct {
	What string
	Err  error
}

func (e *FollowUpError) Error() string { return fmt.Sprintf("%s: %v", e.What, e.Err) }
func (e *FollowUpError) Unwrap() error { return e.Err }

// SetFollowUp records in tmp, before Commit, the follow-up of kind (a registered
// handler) with data; what says what it commits ("the index's generation 4").
func SetFollowUp(ctx context.Context, tmp, kind, what string, data []byte) error {
	b, err := json.Marshal(followUp{Kind: kind, What: what, Data: data})
	if err != nil {
		return err
	}
	return files.WriteBytes(ctx, files.Join(tmp, FollowUpName), b)
}

// runFollowUp runs the follow-up recorded in tmp, if any, and says what it committed.
// A follow-up that fails is a *FollowUpError.
func runFollowUp(ctx context.Context, tmp string) (string, error) {
	r, err := files.Open(ctx, files.Join(tmp, FollowUpName))
	if err != nil {
		if rel, lerr := files.Tree(ctx, files.Join(tmp, FollowUpName)); lerr == nil && len(rel) == 0 {
			return "", nil
		}
		return "", &FollowUpError{What: "the work committed with the outputs", Err: err}
	}
	b, err := io.ReadAll(io.LimitReader(r, 64<<20))
	r.Close()
	if err != nil {
		return "", &FollowUpError{What: "the work committed with the outputs", Err: err}
	}
	var f followUp
	if err := json.Unmarshal(b, &f); err != nil {
		return "", &FollowUpError{What: "the work committed with the outputs", Err: fmt.Errorf("%s: %w", FollowUpName, err)}
	}
	handlersMu.Lock()
	fn := handlers[f.Kind]
	handlersMu.Unlock()
	if fn == nil {
		return "", &FollowUpError{What: f.What, Err: fmt.Errorf("no handler for %q", f.Kind)}
	}
	step()
	if err := fn(ctx, f.Data); err != nil {
		return "", &FollowUpError{What: f.What, Err: err}
	}
	return f.What, nil
}

// withFollowUp joins a commit's error with its follow-up's: the outputs' error wins.
func withFollowUp(err, ferr error) error {
	if err != nil {
		return err
	}
	return ferr
}

// recovered adds to Recover's message what its follow-up did or why it failed.
func recovered(msg, what string, ferr error) string {
	var fe *FollowUpError
	switch {
	case errors.As(ferr, &fe):
		return msg + "; but " + fe.What + " was not committed with them: " + fe.Err.Error()
	case what != "":
		return msg + ", and " + what + " committed with them"
	}
	return msg
}
