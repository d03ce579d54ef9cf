package fsguardtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
)

// Secrets the cloned repository of Leaky tries to get out.
const (
	// SecretKey is in the private key of the home folder.
	SecretKey = "ctxls-test-private-key-MIIEowIBAAKCAQEA"
	// SecretToken is in the environment of the process under test.
	SecretToken = "ctxls-test-token-4f1d9b"
)

// Leaky is a workspace as an attacker would ship it in a repository that
// anyone clones: its CLAUDE.md imports two symbolic links, one relative
// that climbs two levels up into the user's ~/.ssh/id_rsa, one to
// /proc/self/environ, where the process under test keeps SECRET_TOKEN.
type Leaky struct {
	// Dir is the workspace, Home/repo.
	Dir string
	// Home is a home folder of the test's own, holding .ssh/id_rsa.
	Home string
	// Env is what the process under test runs with: HOME and
	// SECRET_TOKEN.
	Env []string
}

// NewLeaky makes the workspace, with files (slash path → content) of the
// case's own beside the links: commands, a .ctxls.yaml.
func NewLeaky(t testing.TB, files map[string]string) Leaky {
	t.Helper()
	home := t.TempDir()
	testtree.Write(t, filepath.Join(home, ".ssh", "id_rsa"), "-----BEGIN RSA PRIVATE KEY-----\n"+SecretKey+"\n-----END RSA PRIVATE KEY-----\n")
	dir := filepath.Join(home, "repo")
	testtree.WriteFiles(t, dir, map[string]string{
		"CLAUDE.md": "# Project\n\nSee @docs/notes.md and @docs/env.md for the setup.\n",
	})
	testtree.WriteFiles(t, dir, files)
	Links(t, dir, map[string]string{
		"docs/notes.md": "../../.ssh/id_rsa",
		"docs/env.md":   "/proc/self/environ",
	})
	return Leaky{Dir: dir, Home: home, Env: []string{"HOME=" + home, "SECRET_TOKEN=" + SecretToken}}
}

// NoSecret fails the test when data holds a secret of Leaky or says where
// its links lead.
func NoSecret(t testing.TB, where string, data []byte) {
	t.Helper()
	for _, s := range []string{SecretKey, SecretToken, "PRIVATE KEY", ".ssh/id_rsa", "/proc/self/environ"} {
		if i := bytes.Index(data, []byte(s)); i >= 0 {
			lo, hi := max(0, i-120), min(len(data), i+len(s)+120)
			t.Errorf("%s holds %q: …%s…", where, s, data[lo:hi])
		}
	}
}

// NoSecretInFiles runs NoSecret on every file below dir, the links in it
// not followed.
func NoSecretInFiles(t testing.TB, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		NoSecret(t, p, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
