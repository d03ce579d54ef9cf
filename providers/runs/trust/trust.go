// Package trust remembers which programs the user agreed to let a
// workspace run. A workspace's .ctxls.yaml may name an exec executor, the
// program every chain step runs; a cloned repository must not run one
// before the user said yes to that exact command line for that workspace.
// The answers live outside every repository, in the user's configuration
// directory, and a grant holds only while the command line, and the
// content of a program inside the workspace that it names, stay the same:
// the model is direnv's, which asks again whenever .envrc changes.
package trust

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/providers/fsguard"
)

// FileName is the name of the file of grants in the configuration
// directory.
const FileName = "trust.json"

// EnvConfigDir names the environment variable that overrides the
// configuration directory of ctxls (by default os.UserConfigDir()/ctxls).
const EnvConfigDir = "CTXLS_CONFIG_DIR"

// maxFile bounds the file of grants that is read.
const maxFile = 8 << 20

// maxProgram bounds the program whose content a grant records; a larger
// program in the workspace is not agreed to at all.
const maxProgram = 1 << 30

// Grant is what the user agreed to for one workspace.
type Grant struct {
	// Command is the argv agreed to.
	Command []string `json:"command"`
	// Program is the SHA-256 of the program Command[0] names when that
	// program lies in the workspace, "" otherwise: a repository that
	// rewrites its own script is asked about again.
	Program string `json:"program,omitempty"`
	// Granted is when the user agreed.
	Granted time.Time `json:"granted"`
}

// file is the content of trust.json.
type file struct {
	// Workspaces maps a workspace directory, its links resolved, to its
	// grant.
	Workspaces map[string]Grant `json:"workspaces"`
}

// Store is the file of grants. Its methods read the file each time, so
// that a grant made by another process counts at once.
type Store struct {
	path string
}

// Open returns the store kept in the file at path.
func Open(path string) *Store { return &Store{path: path} }

// Default returns the store of the user's configuration directory:
// $CTXLS_CONFIG_DIR/trust.json, else os.UserConfigDir()/ctxls/trust.json.
func Default() (*Store, error) {
	dir := os.Getenv(EnvConfigDir)
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("trust: no configuration directory to keep agreed commands in (set %s): %w", EnvConfigDir, err)
		}
		dir = filepath.Join(base, "ctxls")
	}
	return Open(filepath.Join(dir, FileName)), nil
}

// Path returns the file the store is kept in.
func (s *Store) Path() string { return s.path }

// Status is what the store says about a workspace's command line.
type Status struct {
	// Agreed is true when the user agreed to this command line for this
	// workspace, and its program in the workspace is the one agreed to.
	Agreed bool
	// Grant is the workspace's grant, when there is one, whatever argv it
	// agreed to.
	Grant *Grant
	// Changed says, when a grant exists but no longer holds, what changed:
	// the command line or the program's content.
	Changed string
}

// Check returns whether argv is agreed to for the workspace at dir.
func (s *Store) Check(dir string, argv []string) (Status, error) {
	key, err := workspaceKey(dir)
	if err != nil {
		return Status{}, err
	}
	f, err := s.load()
	if err != nil {
		return Status{}, err
	}
	g, ok := f.Workspaces[key]
	if !ok {
		return Status{}, nil
	}
	st := Status{Grant: &g}
	if !slices.Equal(g.Command, argv) {
		st.Changed = "the command line"
		return st, nil
	}
	sum, err := ProgramDigest(dir, argv)
	if err != nil {
		return Status{}, err
	}
	if sum != g.Program {
		st.Changed = fmt.Sprintf("the content of %s", argv[0])
		return st, nil
	}
	st.Agreed = true
	return st, nil
}

// Grant records that the user agrees to argv for the workspace at dir, in
// place of any earlier grant of that workspace, and returns the grant.
func (s *Store) Grant(dir string, argv []string, now time.Time) (Grant, error) {
	if len(argv) == 0 {
		return Grant{}, errors.New("trust: no command line to agree to")
	}
	key, err := workspaceKey(dir)
	if err != nil {
		return Grant{}, err
	}
	sum, err := ProgramDigest(dir, argv)
	if err != nil {
		return Grant{}, err
	}
	g := Grant{Command: slices.Clone(argv), Program: sum, Granted: now.UTC().Truncate(time.Second)}
	err = s.update(func(f *file) { f.Workspaces[key] = g })
	return g, err
}

// Revoke forgets the grant of the workspace at dir and reports whether
// there was one.
func (s *Store) Revoke(dir string) (bool, error) {
	key, err := workspaceKey(dir)
	if err != nil {
		return false, err
	}
	had := false
	err = s.update(func(f *file) {
		_, had = f.Workspaces[key]
		delete(f.Workspaces, key)
	})
	return had, err
}

// load reads the store; a missing file holds no grant.
func (s *Store) load() (*file, error) {
	f := &file{Workspaces: map[string]Grant{}}
	data, err := fsguard.ReadFile(context.Background(), s.path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: read %s: %w", s.path, err)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("trust: %s is not valid JSON (fix or delete it): %w", s.path, err)
	}
	if f.Workspaces == nil {
		f.Workspaces = map[string]Grant{}
	}
	return f, nil
}

// update changes the store with fn and writes it atomically, under the
// store's lock: a reader sees the old file or the new one, never a part,
// and of two updates at once neither is lost.
func (s *Store) update(fn func(*file)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	unlock, err := lock(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("trust: lock %s: %w", s.path, err)
	}
	defer unlock()
	f, err := s.load()
	if err != nil {
		return err
	}
	fn(f)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	data = append(data, '\n')
	if err := writeAtomic(s.path, data, 0o600); err != nil {
		return fmt.Errorf("trust: write %s: %w", s.path, err)
	}
	return nil
}

// workspaceKey is the directory of a workspace as the store names it:
// absolute, its links resolved, so that two paths to one workspace share
// a grant.
func workspaceKey(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return fsguard.NewRoot(abs).Real(), nil
}

// ProgramDigest returns the SHA-256, in hex, of the program argv[0] names
// when it is a path inside the workspace at dir (relative paths are the
// workspace's, as the executor reads them), and "" for a program found on
// PATH or outside the workspace. A program that is missing has the digest
// "" too: it cannot run.
func ProgramDigest(dir string, argv []string) (string, error) {
	if len(argv) == 0 {
		return "", nil
	}
	prog := argv[0]
	if !strings.ContainsAny(prog, `/\`) {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(abs, prog)
	}
	prog = filepath.Clean(prog)
	if !fsguard.NewRoot(abs).Contains(prog) {
		return "", nil
	}
	// What runs is digested, wherever a link of the workspace leads: a
	// link pointed at another program is a changed program. The digest
	// is all that is kept of it; nothing of its content is shown.
	fh, fi, err := fsguard.Open(prog)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("trust: program %s: %w", argv[0], unwrapPath(err))
	}
	defer fh.Close()
	if fi.Size() > maxProgram {
		return "", fmt.Errorf("trust: program %s is %d bytes, more than ctxls reads to tell that it did not change", argv[0], fi.Size())
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(fh, maxProgram+1)); err != nil {
		return "", fmt.Errorf("trust: program %s: %w", argv[0], err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// unwrapPath returns the error of a *fs.PathError, whose path the caller
// names otherwise.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
