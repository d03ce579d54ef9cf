package libtest

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer safe for concurrent use: the output of a
// process or goroutine that a test reads while it is still written.
type SyncBuffer struct {
	// Max, when positive, is how many bytes the buffer keeps; what comes
	// after is dropped, so a chatty process cannot fill the memory of a
	// long test. The head says enough.
	Max int

	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p, or drops it once the buffer holds Max bytes.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Max > 0 && b.buf.Len() >= b.Max {
		return len(p), nil
	}
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
