//go:build !linux

package listing

import (
	"io/fs"
	"os"
)

// readEntries lists the folder dir as os.ReadDir does.
func readEntries(dir string, _ *scratch) ([]entry, error) {
	des, err := os.ReadDir(dir)
	var names []byte
	ends := make([]int, len(des))
	types := make([]fs.FileMode, len(des))
	for i, d := range des {
		names = append(names, d.Name()...)
		ends[i], types[i] = len(names), d.Type()
	}
	return build(dir, names, ends, types), err
}
