//go:build !unix

package watcher

import "io/fs"

// Without inode numbers directories cannot be recognised when reached twice;
// links to directories are then only safe with FollowSymlinks off.
func fileIDOf(fs.FileInfo) fileID { return fileID{} }
