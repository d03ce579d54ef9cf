package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/mcp"
)

// runMCP serves the workspace to agents over the Model Context Protocol on
// stdin and stdout.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("mcp", stderr)
	dirFlag := fs.String("dir", "", "workspace directory (default .)")
	verbose := fs.Bool("v", false, "log debug messages to stderr")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{msg: "mcp takes no arguments; give the workspace with --dir DIR", cmd: "mcp"}
	}
	dir, err := workspaceDir("mcp", *dirFlag, nil)
	if err != nil {
		return err
	}
	log := startServer(stderr, slog.LevelWarn, *verbose)
	srv, err := mcp.New(ctx, mcp.Options{Dir: dir, Version: buildVersion(), Logger: log})
	if err != nil {
		return err
	}
	defer srv.Close()
	err = srv.Run(ctx, &sdk.IOTransport{Reader: readCloser(stdin), Writer: writeCloser(stdout)})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// writeCloser keeps the process's stdout open when the session ends.
func writeCloser(w io.Writer) io.WriteCloser {
	if f, ok := w.(*os.File); ok && f == os.Stdout {
		return nopWriteCloser{w}
	}
	if wc, ok := w.(io.WriteCloser); ok {
		return wc
	}
	return nopWriteCloser{w}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
