package chain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/errkind"
)

// Executor kinds of the configuration.
const (
	KindPreview = "preview"
	KindExec    = "exec"
)

// defaultMaxOutput is the most bytes of an agent's standard output a step
// keeps; the rest is counted and reported, not stored.
const defaultMaxOutput = 4 << 20

// stderrTail is how many trailing bytes of an agent's standard error a
// failed step reports.
const stderrTail = 4 << 10

// ErrExecutor reports an executor that is misconfigured or cannot start.
var ErrExecutor = errkind.New(errkind.Invalid, "executor")

// Job is one step handed to an executor.
type Job struct {
	Command   string
	SessionID string
	// Step is the 0-based position of the step in the execution.
	Step    int
	Attempt int
	Prompt  string
}

// Outcome is what an executor made of a job.
type Outcome struct {
	// Ran is false for the preview executor, which runs nothing.
	Ran bool
	// Output is the agent's standard output, at most the executor's limit.
	Output []byte
	// OutputBytes is the full size of the standard output.
	OutputBytes int64
	// Stderr is the tail of the standard error.
	Stderr   string
	ExitCode int
	Elapsed  time.Duration
	// Failure explains why the step failed ("" when it did not): the
	// program could not start, exited with a non-zero status or timed out.
	Failure string
	// Cancelled reports that the job was stopped because its context was
	// cancelled (not by the timeout).
	Cancelled bool
}

// Executor runs the prompt of one step.
type Executor interface {
	// Kind returns "preview" or "exec".
	Kind() string
	// Execute runs the job. It returns an error only when it could not
	// tell what happened; failures of the agent are in the Outcome.
	Execute(ctx context.Context, job Job) (Outcome, error)
}

// newExecutor returns the executor a configuration asks for. dir is the
// working directory of exec agents (the workspace).
func newExecutor(cfg config.Executor, dir string) (Executor, error) {
	switch cfg.Kind {
	case "", KindPreview:
		return previewExecutor{}, nil
	case KindExec:
		if len(cfg.Command) == 0 || strings.TrimSpace(cfg.Command[0]) == "" {
			return nil, fmt.Errorf("%w: kind exec needs executor.command, the argv of the agent program (for example [\"claude\", \"-p\"])", ErrExecutor)
		}
		prog := cfg.Command[0]
		if !filepath.IsAbs(prog) && strings.ContainsAny(prog, `/\`) {
			// A relative path names a program in the workspace, wherever
			// the server was started.
			prog = filepath.Join(dir, prog)
		}
		path, err := exec.LookPath(prog)
		if err != nil {
			return nil, fmt.Errorf("%w: agent program %q not found: %v", ErrExecutor, cfg.Command[0], err)
		}
		timeout := cfg.Timeout.Duration
		if timeout <= 0 {
			timeout = config.DefaultExecTimeout
		}
		return &execExecutor{Path: path, Args: cfg.Command[1:], Dir: dir, Timeout: timeout, MaxOutput: defaultMaxOutput}, nil
	}
	return nil, fmt.Errorf("%w: unknown executor kind %q (want preview or exec)", ErrExecutor, cfg.Kind)
}

// previewExecutor is the executor that runs nothing: the step records its prompt
// and token costs.
type previewExecutor struct{}

// Kind returns "preview".
func (previewExecutor) Kind() string { return KindPreview }

// Execute returns at once without running anything.
func (previewExecutor) Execute(ctx context.Context, job Job) (Outcome, error) {
	return Outcome{}, ctx.Err()
}

// execExecutor runs an agent program per step: the prompt on its standard input,
// the result on its standard output.
type execExecutor struct {
	// Path is the program; Args its arguments.
	Path string
	Args []string
	// Dir is the working directory.
	Dir string
	// Timeout bounds one step.
	Timeout time.Duration
	// MaxOutput is the most bytes of standard output kept.
	MaxOutput int64
	// KillGrace is how long the program may take to exit after it is
	// killed before its pipes are abandoned (default 2s).
	KillGrace time.Duration
}

// Kind returns "exec".
func (e *execExecutor) Kind() string { return KindExec }

// Execute runs the program with the job's prompt on standard input and the
// CTXLS_COMMAND, CTXLS_SESSION_ID, CTXLS_STEP and CTXLS_ATTEMPT environment
// variables. On Unix the program runs in a process group of its own under a
// small shell supervisor: on timeout or cancellation the whole group is
// killed, and so is what is left of it when the program exits or when the
// server dies, however it dies.
func (e *execExecutor) Execute(ctx context.Context, job Job) (Outcome, error) {
	start := time.Now()
	proc, err := newAgentProcess(e.Path, e.Args)
	if err != nil {
		return Outcome{Ran: true, Failure: fmt.Sprintf("cannot start %s: %v", e.Path, err), ExitCode: -1, Elapsed: time.Since(start)}, nil
	}
	defer proc.done()
	cmd := proc.cmd
	cmd.Dir = e.Dir
	cmd.Env = append(os.Environ(),
		"CTXLS_COMMAND="+job.Command,
		"CTXLS_SESSION_ID="+job.SessionID,
		"CTXLS_STEP="+strconv.Itoa(job.Step),
		"CTXLS_ATTEMPT="+strconv.Itoa(job.Attempt),
	)
	cmd.Stdin = strings.NewReader(job.Prompt)
	max := e.MaxOutput
	if max <= 0 {
		max = defaultMaxOutput
	}
	stdout := &capped{max: max}
	stderr := &tail{max: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	grace := e.KillGrace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	// Grandchildren holding the pipes open must not hang the step.
	cmd.WaitDelay = grace

	err = cmd.Start()
	proc.started()
	if err != nil {
		return Outcome{Ran: true, Failure: fmt.Sprintf("cannot start %s: %v", e.Path, err), ExitCode: -1, Elapsed: time.Since(start)}, nil
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	timer := time.NewTimer(e.Timeout)
	defer timer.Stop()
	var (
		waitErr            error
		timedOut, canceled bool
	)
	select {
	case waitErr = <-done:
	case <-timer.C:
		timedOut = true
		proc.killGroup()
		waitErr = <-done
	case <-ctx.Done():
		canceled = true
		proc.killGroup()
		waitErr = <-done
	}
	out := Outcome{
		Ran:         true,
		Output:      stdout.buf.Bytes(),
		OutputBytes: stdout.n,
		Stderr:      stderr.String(),
		ExitCode:    cmd.ProcessState.ExitCode(),
		Elapsed:     time.Since(start),
		Cancelled:   canceled,
	}
	switch {
	case canceled:
		out.Failure = "cancelled"
	case timedOut:
		out.Failure = fmt.Sprintf("timed out after %v", e.Timeout)
	case waitErr != nil:
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			out.Failure = ee.Error() // "exit status 3" or "signal: killed"
		} else {
			out.Failure = waitErr.Error()
		}
	}
	if out.Failure != "" && out.Stderr != "" {
		out.Failure += ": " + lastLines(out.Stderr, 20)
	}
	return out, nil
}

// capped keeps the first max bytes written and counts the rest.
type capped struct {
	buf bytes.Buffer
	max int64
	n   int64
}

func (c *capped) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if room := c.max - int64(c.buf.Len()); room > 0 {
		c.buf.Write(p[:min(int64(len(p)), room)])
	}
	return len(p), nil
}

// tail keeps the last max bytes written.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// lastLines returns the last n non-empty lines of s, trimmed.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

var _ io.Writer = (*capped)(nil)

// FormatCommandLine returns argv as a shell would read it back, to show
// a person what an exec executor runs: an argument holding anything but
// plain characters is single-quoted, control characters are written as
// \xNN and other invisible ones as \uNNNN, so that spaces, quotes and escapes cannot make one argument
// look like several, or hide one.
func FormatCommandLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
			out[i] = a
			continue
		}
		var b strings.Builder
		b.WriteByte('\'')
		for _, r := range a {
			switch {
			case r == '\'':
				b.WriteString(`'\''`)
			case r < 0x20 || r == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, r)
			case !unicode.IsPrint(r):
				// Right-to-left overrides and other invisible marks.
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('\'')
		out[i] = b.String()
	}
	return strings.Join(out, " ")
}
