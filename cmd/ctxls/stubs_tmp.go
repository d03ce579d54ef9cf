package main

import (
	"context"
	"io"
)

func runCatalog(ctx context.Context, args []string, stdout, stderr io.Writer) error { return nil }
func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error  { return nil }
func runShow(ctx context.Context, args []string, stdout, stderr io.Writer) error    { return nil }
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error   { return nil }
