package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version and commit name a release build; the release sets them with
//
//	-ldflags "-X main.version=0.1.0 -X main.commit=<full hash>"
//
// and modified to "true" when the tree had changes the commit lacks.
// Other builds leave them as they are and take them from the build
// information the go command records.
var (
	version  = "dev"
	commit   = ""
	modified = ""
)

// build says what this binary is.
type build struct {
	// Version is the release version, the module version of a go install
	// of a tagged module, or "dev".
	Version string
	// Commit is the full revision the binary was built from, "" when the
	// build recorded none (go run, -buildvcs=false, a tree without git).
	Commit string
	// Modified says that the working tree had changes the commit lacks.
	Modified bool
	// Go is the toolchain, Platform GOOS/GOARCH.
	Go, Platform string
}

// thisBuild describes the running binary.
func thisBuild() build {
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(bi, version, commit, modified)
}

// buildVersion is the version the binary reports to editors and in SARIF.
func buildVersion() string { return thisBuild().Version }

// describeBuild combines what the linker was told (version, commit,
// modified) with the build information bi, which may be nil.
func describeBuild(bi *debug.BuildInfo, version, commit, modified string) build {
	b := build{Version: version, Commit: commit, Modified: commit != "" && modified == "true", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return b
	}
	if bi.GoVersion != "" {
		b.Go = bi.GoVersion
	}
	// go install module@v1.2.3 records v1.2.3; a build in a clone records
	// a pseudo-version derived from the commit (v0.0.0-2026…-abcdef),
	// which says no more than the commit does.
	if b.Version == "dev" || b.Version == "" {
		b.Version = "dev"
		if v := bi.Main.Version; v != "" && v != "(devel)" && !isPseudoVersion(v) {
			b.Version = strings.TrimPrefix(v, "v")
		}
	}
	if b.Commit == "" {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}

// isPseudoVersion reports whether v is a Go pseudo-version such as
// v0.0.0-20261202101041-44db725395bb, possibly with +dirty.
func isPseudoVersion(v string) bool {
	v, _, _ = strings.Cut(v, "+")
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	stamp, rev := parts[len(parts)-2], parts[len(parts)-1]
	// The timestamp may follow a pre-release's dot: v1.2.4-pre.0.2026….
	if i := strings.LastIndexByte(stamp, '.'); i >= 0 {
		stamp = stamp[i+1:]
	}
	return len(stamp) == 14 && isDigits(stamp) && len(rev) == 12 && isHex(rev)
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return s != ""
}

// String is the line ctxls version prints.
func (b build) String() string {
	c := "commit unknown (go run and -buildvcs=false record none)"
	if b.Commit != "" {
		c = "commit " + b.Commit
		if b.Modified {
			c += " with local changes"
		}
	}
	return fmt.Sprintf("ctxls %s, %s, %s %s", b.Version, c, b.Go, b.Platform)
}
