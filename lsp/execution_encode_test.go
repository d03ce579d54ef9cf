package lsp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/execution"
)

// TestEncodeExecutionList checks the hand-written encoder of
// ctxls/execution/list against encoding/json, including strings that need
// escaping.
func TestEncodeExecutionList(t *testing.T) {
	created := time.Date(2026, 5, 1, 12, 30, 45, 123000000, time.UTC)
	for _, items := range [][]execution.Summary{
		{},
		{{SessionID: "a", ProjectName: "shop", State: execution.StateCompleted, Created: created, IsCurrent: true,
			Summary: execution.Progress{CurrentCommand: "test", CommandsCompleted: 3, CommandsTotal: 3}}},
		{
			{SessionID: "b", ProjectName: "quote \" back\\slash <tag> & ünïcode \u2028 \x01", ProjectType: "tab\there",
				State: execution.StateFailed, Created: created.Add(time.Second), Summary: execution.Progress{CurrentCommand: "ä", CommandsFailed: 1, CommandsTotal: 2}},
			{SessionID: "c", ProjectName: "invalid \xff utf8", State: execution.StateRunning, Created: time.UnixMilli(0).UTC(), IsCurrent: true},
		},
	} {
		want := executionListResult{Items: items, Warnings: []warning{}}
		for _, it := range items {
			if it.IsCurrent {
				want.Current = it.SessionID
			}
		}
		wb, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		got := encodeExecutionList(items)
		if string(got) != string(wb) {
			t.Errorf("encoded\n%s\nwant\n%s", got, wb)
		}
	}
}
