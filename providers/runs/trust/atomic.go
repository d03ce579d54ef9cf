package trust

import (
	"os"

	"github.com/ctxls/ctxls/providers/atomicfile"
)

// writeAtomic writes data to path so that the file holds the old content
// or the new one whatever happens meanwhile; see atomicfile.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	return atomicfile.Write(path, data, perm)
}
