package listing

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"syscall"
)

// direntBuf is the size of the buffer a folder is read into, as os reads
// it.
const direntBuf = 8 << 10

// readEntries lists the folder dir as os.ReadDir does, reading the
// records of getdents64 itself: os.ReadDir allocates a value and a name
// for each entry, which for a tree of a hundred thousand files is most of
// what a walk allocates. A name whose type the file system does not give
// is looked at, as os does.
func readEntries(dir string, s *scratch) ([]entry, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	if len(s.buf) < direntBuf {
		s.buf = make([]byte, direntBuf)
	}
	names, ends, types := s.names[:0], s.ends[:0], s.types[:0]
	// The next folder reuses the room this one grew.
	defer func() { s.names, s.ends, s.types = names, ends, types }()
	for {
		var n int
		err := retry(func() (err error) {
			n, err = syscall.ReadDirent(fd, s.buf)
			return err
		})
		if err != nil {
			return build(dir, names, ends, types), &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return build(dir, names, ends, types), nil
		}
		for rec := s.buf[:n]; len(rec) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
			if reclen < 19 || reclen > len(rec) {
				break
			}
			ino, typ, raw := binary.NativeEndian.Uint64(rec[0:8]), rec[18], rec[19:reclen]
			rec = rec[reclen:]
			if i := bytes.IndexByte(raw, 0); i >= 0 {
				raw = raw[:i]
			}
			if ino == 0 || string(raw) == "." || string(raw) == ".." {
				continue
			}
			mode, ok := direntType(typ)
			if !ok {
				fi, err := os.Lstat(dir + "/" + string(raw))
				if os.IsNotExist(err) {
					continue // gone meanwhile, as os skips it
				}
				if err != nil {
					return nil, err
				}
				mode = fi.Mode().Type()
			}
			names = append(names, raw...)
			ends = append(ends, len(names))
			types = append(types, mode)
		}
	}
}

// direntType returns the type of a getdents64 record's d_type, false for
// DT_UNKNOWN.
func direntType(t byte) (fs.FileMode, bool) {
	switch t {
	case syscall.DT_REG:
		return 0, true
	case syscall.DT_DIR:
		return fs.ModeDir, true
	case syscall.DT_LNK:
		return fs.ModeSymlink, true
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, true
	case syscall.DT_SOCK:
		return fs.ModeSocket, true
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case syscall.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// retry runs a system call again while a signal interrupts it.
func retry(call func() error) error {
	for {
		if err := call(); err != syscall.EINTR {
			return err
		}
	}
}
