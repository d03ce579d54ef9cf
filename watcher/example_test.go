package watcher_test

import (
	"fmt"
	"log"

	"github.com/ctxls/ctxls/watcher"
)

// A language server watches the workspace and its configuration file, feeds
// the client's workspace/didChangeWatchedFiles into the same stream with
// Notify, and applies each batch to its index.
func Example() {
	w, err := watcher.New(watcher.Options{
		Roots: []string{"/path/to/workspace"},
		Files: []string{"/path/to/workspace/.ctxls.yaml"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	// From the didChangeWatchedFiles handler, with URIs turned into paths:
	w.Notify("/path/to/workspace/context/python/index.md")

	for batch := range w.Batches() {
		if batch.Rescan {
			fmt.Println("events were lost; everything was re-read")
		}
		for _, c := range batch.Changes {
			if !c.IsDir {
				fmt.Println(c.Kind, c.Path)
			}
		}
	}
}
