package main

// platform is one target of the release, in the names of each place it
// goes to: Go, npm (process.platform and process.arch) and VS Code.
type platform struct {
	goos, goarch string
	os, cpu      string // npm's os and cpu fields, Node's process.platform and process.arch
}

// platforms are the targets the release builds.
var platforms = []platform{
	{"linux", "amd64", "linux", "x64"},
	{"linux", "arm64", "linux", "arm64"},
	{"darwin", "amd64", "darwin", "x64"},
	{"darwin", "arm64", "darwin", "arm64"},
	{"windows", "amd64", "win32", "x64"},
	{"windows", "arm64", "win32", "arm64"},
}

// exe is the binary's file name.
func (p platform) exe() string {
	if p.goos == "windows" {
		return "ctxls.exe"
	}
	return "ctxls"
}

// target is the platform as npm's package names and vsce's --target say
// it: linux-x64, win32-arm64.
func (p platform) target() string { return p.os + "-" + p.cpu }

// npmName is the npm package holding the binary.
func (p platform) npmName() string { return "@ctxls/" + p.target() }

// archiveBase is the name of the platform's archive without its
// extension, and of the folder inside it.
func (p platform) archiveBase(version string) string {
	return "ctxls_" + version + "_" + p.goos + "_" + p.goarch
}

// archiveName is the file name of the platform's archive: a zip for
// Windows, a gzipped tar elsewhere.
func (p platform) archiveName(version string) string {
	if p.goos == "windows" {
		return p.archiveBase(version) + ".zip"
	}
	return p.archiveBase(version) + ".tar.gz"
}
