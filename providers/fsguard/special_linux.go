package fsguard

import (
	"fmt"
	"os"
	"syscall"
)

// kernelFS names the file systems whose files are views of the kernel and
// of processes rather than content: /proc/self/environ holds the
// environment of ctxls, with whatever tokens it carries, and reports
// itself as an empty regular file.
var kernelFS = map[uint32]string{
	0x9fa0:     "/proc",
	0x62656572: "/sys",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0xcafe4a11: "bpf",
	0x1cd1:     "devpts",
	0x62656570: "configfs",
	0xde5e81e4: "efivarfs",
	0x6165676c: "pstore",
}

// special returns an error wrapping ErrNotRegular when f lies on a kernel
// file system.
func special(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = specialFD(int(fd)) }); err != nil {
		return err
	}
	return serr
}

// specialFD is special of an open file descriptor. The magic numbers are
// 32 bits wide whatever the width of Statfs_t.Type.
func specialFD(fd int) error {
	var st syscall.Statfs_t
	if err := retry(func() error { return syscall.Fstatfs(fd, &st) }); err != nil {
		return err
	}
	if name, ok := kernelFS[uint32(st.Type)]; ok {
		return fmt.Errorf("%w (a file of %s)", ErrNotRegular, name)
	}
	return nil
}
