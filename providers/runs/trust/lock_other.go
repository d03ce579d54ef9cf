//go:build !unix

package trust

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// staleLock is the age past which a lock file is taken to be left by a
// process that died holding it.
const staleLock = 10 * time.Second

// lock takes the lock file at path, created exclusively, waiting for
// another holder to remove it, and returns what releases it.
func lock(path string) (func(), error) {
	deadline := time.Now().Add(2 * staleLock)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, serr := os.Stat(path); serr == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another process", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
