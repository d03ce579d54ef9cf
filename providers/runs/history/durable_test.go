package history

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/providers/runs/storage"
	"github.com/ctxls/ctxls/providers/tokens"
)

// appenderEnv names the database a child process of
// TestAppendSurvivesKilledProcess appends to.
const appenderEnv = "CTXLS_HISTORY_TEST_APPENDER_DB"

// runAppender is the child process: it appends messages, up to a number that
// one page of List holds, and prints the id and content of each once Append
// has returned; then it waits to be killed.
func runAppender(path string) {
	ctx := context.Background()
	db, err := storage.Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	c, err := tokens.New(tokens.O200kBase)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s := Open(db, c)
	for i := range maxListLimit / 2 {
		m, err := s.Append(ctx, Message{ConversationID: "c", Role: RoleUser, Content: fmt.Sprintf("message %d", i)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Printf("%d\t%s\n", m.ID, m.Content)
	}
	select {}
}

// A message is stored once Append returns: a process killed while it
// appends, without closing its database, leaves every message it was told
// about in the file, with the id it was given.
func TestAppendSurvivesKilledProcess(t *testing.T) {
	t.Parallel()
	if path := os.Getenv(appenderEnv); path != "" {
		runAppender(path)
		return
	}
	path := filepath.Join(t.TempDir(), storage.FileName)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAppendSurvivesKilledProcess$")
	cmd.Env = append(os.Environ(), appenderEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	const before = 200
	returned := map[int64]string{}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		id, content, ok := strings.Cut(lines.Text(), "\t")
		n, err := strconv.ParseInt(id, 10, 64)
		if !ok || err != nil {
			t.Fatalf("child printed %q", lines.Text())
		}
		returned[n] = content
		if len(returned) == before {
			// Kill the process in the middle of its appends.
			cmd.Process.Kill()
		}
	}
	cmd.Wait()
	if len(returned) < before {
		t.Fatalf("child stopped after %d appends: %s", len(returned), stderr.String())
	}

	ctx := context.Background()
	s, _ := openPath(t, path)
	p, err := s.List(ctx, "c", ListRequest{Limit: maxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int64]string{}
	for _, m := range p.Items {
		stored[m.ID] = m.Content
	}
	for id, content := range returned {
		if stored[id] != content {
			t.Fatalf("message %d %q was returned by Append, but the database holds %q", id, content, stored[id])
		}
	}
	// At most the append under way when the process died is stored without
	// having been reported.
	if len(stored) > len(returned)+1 {
		t.Errorf("%d messages stored, %d reported", len(stored), len(returned))
	}
	if c, err := s.stat(ctx, "c"); err != nil || c.Messages != len(stored) {
		t.Errorf("conversation counts %+v (%v), %d messages stored", c, err, len(stored))
	}
}

// Another process deletes a conversation this store appended to: the next
// append creates it again, holding only the new message.
func TestAppendAfterDeleteByAnotherHandle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, path := openStore(t)
	b, _ := openPath(t, path)
	mustAppend(t, a, Message{ConversationID: "c", Role: RoleUser, Content: "first"})
	mustAppend(t, a, Message{ConversationID: "c", Role: RoleAssistant, Content: "second"})
	tok, _, err := b.RequestDelete(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ConfirmDelete(ctx, "c", tok); err != nil {
		t.Fatal(err)
	}
	m := mustAppend(t, a, Message{ConversationID: "c", Role: RoleUser, Content: "after the delete"})
	p, err := b.List(ctx, "c", ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 1 || p.Items[0] != m {
		t.Fatalf("listed %+v, want only %+v", p.Items, m)
	}
	if c, err := b.stat(ctx, "c"); err != nil || c.Messages != 1 || c.Tokens != m.Tokens {
		t.Fatalf("conversation after the delete: %+v %v", c, err)
	}
}

// Stores on one database, as a server has for its history requests and for
// its chains, append concurrently without losing or mixing messages.
func TestStoresOnOneDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, db, _ := openStore(t)
	b := Open(db, counter(t))
	const each = 40
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i, s := range []*Store{a, b, a, b} {
		wg.Go(func() {
			for j := range each {
				m, err := s.Append(ctx, Message{ConversationID: fmt.Sprint("c", i%2), Role: RoleUser, Content: fmt.Sprintf("%d-%d", i, j)})
				if err != nil {
					errs <- err
					return
				}
				if got, err := s.List(ctx, m.ConversationID, ListRequest{Before: m.ID + 1, Limit: 1}); err != nil || len(got.Items) != 1 || got.Items[0] != m {
					errs <- fmt.Errorf("append returned %+v, stored %+v (%v)", m, got.Items, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, c := range []string{"c0", "c1"} {
		if st, err := a.stat(ctx, c); err != nil || st.Messages != 2*each {
			t.Errorf("%s: %+v %v", c, st, err)
		}
	}
}
