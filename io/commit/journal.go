package commit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/neardup/neardup/io/files"
)

// journal is the content of Journal: the temporary directory holding the new set, its
// names (the marker last) and the older names to remove.
type journal struct {
	Temp   string   `json:"temp"`
	Names  []string `json:"names"`
	Remove []string `json:"remove"`
}

// maxJournal bounds the bytes of Journal read back: it lists a few names.
const maxJournal = 1 << 20

// commitJournal commits where there is no rename to switch with: writing Journal
// decides the commit, and rollForward carries it out.
func commitJournal(ctx context.Context, tmp, dir string, names, older []string) error {
	j := journal{Temp: path.Base(tmp), Names: names}
	for _, n := range older {
		if plainName(n) && !slices.Contains(names, n) && !slices.Contains(j.Remove, n) {
			j.Remove = append(j.Remove, n)
		}
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	staged := files.Join(tmp, "commit.json")
	step()
	if err := files.WriteBytes(ctx, staged, b); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if err := errors.Join(syncPath("file", staged), syncTree(tmp)); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	step()
	if err := files.Rename(ctx, staged, files.Join(dir, Journal)); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if err := syncPath("dir", dir); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	_, err = rollForward(ctx, dir, j)
	return err
}

// recoverJournal rolls forward the commit Journal records, if there is one.
func recoverJournal(ctx context.Context, dir string) (string, error) {
	r, err := files.Open(ctx, files.Join(dir, Journal))
	if err != nil {
		if tree, lerr := files.Tree(ctx, files.Join(dir, Journal)); lerr == nil && len(tree) == 0 {
			return "", nil // no journal: no commit was under way
		}
		return "", fmt.Errorf("recover the interrupted commit in %s: %w", dir, err)
	}
	b, err := io.ReadAll(io.LimitReader(r, maxJournal+1))
	r.Close()
	if err != nil {
		return "", fmt.Errorf("recover the interrupted commit in %s: %w", dir, err)
	}
	j, err := parseJournal(b)
	if err != nil {
		return "", fmt.Errorf("%s: %w; remove it and rerun with --overwrite", files.Join(dir, Journal), err)
	}
	what, err := rollForward(ctx, dir, j)
	var fe *FollowUpError
	if err != nil && !errors.As(err, &fe) {
		return "", fmt.Errorf("recover the interrupted commit in %s: %w", dir, err)
	}
	return recovered("finished the commit of a run that was killed while committing: "+dir+" holds that run's outputs", what, err), nil
}

// parseJournal reads Journal as the untrusted input it is: every name must be a plain
// entry of the directory, and the temporary directory one of a run's.
func parseJournal(b []byte) (journal, error) {
	var j journal
	if len(b) > maxJournal {
		return j, errors.New("not a commit journal: over 1 MiB")
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return j, fmt.Errorf("not a commit journal: %w", err)
	}
	if !plainName(j.Temp) || !strings.HasPrefix(j.Temp, ".neardup-tmp-") {
		return j, fmt.Errorf("not a commit journal: temp %q is not a run's temporary directory", j.Temp)
	}
	if len(j.Names) == 0 {
		return j, errors.New("not a commit journal: no names")
	}
	for _, n := range append(append([]string{}, j.Names...), j.Remove...) {
		if !plainName(n) || strings.HasPrefix(n, ".neardup-") {
			return j, fmt.Errorf("not a commit journal: %q is not an output name", n)
		}
	}
	return j, nil
}

// rollForward carries out the commit j into dir, then its follow-up; run again after a
// kill, it does the same, since the new set stays in the temporary directory until
// Journal is gone. The marker (the last name) is removed first and written last, so
// that no directory holding it holds a mix. A failed follow-up is a *FollowUpError,
// returned once the commit is done.
func rollForward(ctx context.Context, dir string, j journal) (string, error) {
	tmp := files.Join(dir, j.Temp)
	marker := j.Names[len(j.Names)-1]
	if err := removeTree(ctx, files.Join(dir, marker)); err != nil {
		return "", err
	}
	for _, n := range j.Remove {
		if err := removeTree(ctx, files.Join(dir, n)); err != nil {
			return "", err
		}
	}
	for _, n := range j.Names {
		if err := copyTree(ctx, files.Join(tmp, n), files.Join(dir, n)); err != nil {
			return "", fmt.Errorf("commit %s: %w", n, err)
		}
	}
	what, ferr := runFollowUp(ctx, tmp)
	// The copies are on disk before the journal that would redo them goes.
	for _, n := range j.Names {
		if err := syncTree(files.Join(dir, n)); err != nil {
			return "", fmt.Errorf("commit %s: %w", n, err)
		}
	}
	if err := syncPath("dir", dir); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	step()
	if err := files.Remove(ctx, files.Join(dir, Journal)); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if err := syncPath("dir", dir); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	step()
	if err := files.RemoveAll(ctx, tmp); err != nil {
		return "", withFollowUp(fmt.Errorf("commit: clean up: %w", err), ferr)
	}
	return what, ferr
}

// copyTree replaces to with a copy of the file or directory from.
func copyTree(ctx context.Context, from, to string) error {
	rel, err := files.Tree(ctx, from)
	if err != nil {
		return err
	}
	if len(rel) == 0 {
		return fmt.Errorf("%s is missing", from)
	}
	if rel[0] != "" { // a directory: no older part may stay beside the new ones
		if err := removeTree(ctx, to); err != nil {
			return err
		}
	}
	for _, r := range rel {
		step()
		if err := files.Copy(ctx, joinRel(from, r), joinRel(to, r)); err != nil {
			return err
		}
	}
	return nil
}

// removeTree removes the file or directory at p; nothing there is not an error.
func removeTree(ctx context.Context, p string) error {
	rel, err := files.Tree(ctx, p)
	if err != nil {
		return err
	}
	for _, r := range rel {
		step()
		if err := files.Remove(ctx, joinRel(p, r)); err != nil {
			return err
		}
	}
	if len(rel) > 0 && rel[0] != "" && files.IsLocal(p) {
		return files.RemoveAll(ctx, p)
	}
	return nil
}

func joinRel(p, rel string) string {
	if rel == "" {
		return p
	}
	return files.Join(p, rel)
}
