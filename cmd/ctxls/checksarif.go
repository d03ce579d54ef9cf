package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/ops"
)

// SARIF 2.1.0, the subset code scanning reads.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool     `json:"tool"`
		ColumnKind string        `json:"columnKind"`
		Results    []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string            `json:"id"`
		ShortDescription     sarifText         `json:"shortDescription"`
		HelpURI              string            `json:"helpUri,omitempty"`
		DefaultConfiguration sarifConfig       `json:"defaultConfiguration"`
		Properties           map[string]string `json:"properties"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
		// RelatedLocations are the other places the message speaks of,
		// such as the other copy of a duplicate.
		RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
		// Properties name the tokenizer of the token counts the
		// message gives, when it gives some.
		Properties map[string]string `json:"properties,omitempty"`
	}
	sarifLocation struct {
		// ID numbers a related location within its result, from 1.
		ID               int           `json:"id,omitempty"`
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
		// Message says what is at a related location.
		Message *sarifText `json:"message,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId"`
	}
	// sarifRegion is a region of a file; a related place has no end.
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
)

// sarifLevel maps a record's severity to a SARIF level.
func sarifLevel(severity string) string {
	switch severity {
	case "error", "warning":
		return severity
	}
	return "note"
}

// writeSARIF writes the records of the workspace dir as one SARIF 2.1.0
// run whose rules are the rules table. Columns count Unicode code points,
// as the records do. Files are named relative to the working directory
// when dir lies inside it, as code scanning wants them when the check runs
// at the repository root on a folder of it; else relative to dir.
func writeSARIF(w io.Writer, records []ops.Diagnostic, dir string) error {
	prefix := sarifPrefix(dir)
	all := diag.All()
	index := map[string]int{}
	driver := sarifDriver{Name: "ctxls", Version: buildVersion(), InformationURI: diag.Repository, Rules: []sarifRule{}}
	for i, r := range all {
		index[r.Code] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.Code,
			ShortDescription:     sarifText{r.Doc},
			HelpURI:              diag.PageURL(r.Code),
			DefaultConfiguration: sarifConfig{sarifLevel(r.Severity.String())},
			Properties:           map[string]string{"source": r.Source, "fix": r.Fix.String()},
		})
	}
	run := sarifRun{Tool: sarifTool{driver}, ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
	// The log is written as its results are made, one at a time, so that
	// the output of a million results never sits in memory whole: the
	// frame around them is the encoding of the log without results, cut
	// where they go.
	var frame bytes.Buffer
	if err := printJSON(&frame, sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return err
	}
	const empty = `"results": []`
	cut := bytes.Index(frame.Bytes(), []byte(empty))
	if cut < 0 || len(records) == 0 {
		_, err := w.Write(frame.Bytes())
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(frame.Bytes()[:cut+len(empty)-1])
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetEscapeHTML(false)
	enc.SetIndent(resultIndent, "  ")
	for i, r := range records {
		one.Reset()
		var props map[string]string
		if r.Tokenizer != "" {
			props = map[string]string{"tokenizer": r.Tokenizer}
		}
		var related []sarifLocation
		for j, rp := range r.Related {
			related = append(related, sarifLocation{ID: j + 1, PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: sarifURI(prefix, rp.File), URIBaseID: "%SRCROOT%"},
				Region:           sarifRegion{StartLine: rp.Line, StartColumn: rp.Column},
			}, Message: &sarifText{rp.Message}})
		}
		err := enc.Encode(sarifResult{
			RuleID:    r.Code,
			RuleIndex: index[r.Code],
			Level:     sarifLevel(r.Severity),
			Message:   sarifText{r.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: sarifURI(prefix, r.File), URIBaseID: "%SRCROOT%"},
				Region:           sarifRegion{r.Line, r.Column, r.EndLine, r.EndColumn},
			}}},
			RelatedLocations: related,
			Properties:       props,
		})
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n" + resultIndent)
		bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
	}
	bw.WriteString("\n" + resultIndent[:len(resultIndent)-2] + "]")
	bw.Write(frame.Bytes()[cut+len(empty):])
	return bw.Flush()
}

// sarifURI is the address of the file at the slash path file of the
// workspace, whose path from the working directory is prefix.
func sarifURI(prefix, file string) string {
	return (&url.URL{Path: path.Join(prefix, file)}).EscapedPath()
}

// resultIndent is the indent of a result in the log as printJSON writes it:
// log, runs, run, results.
const resultIndent = "        "

// sarifPrefix is the path of dir relative to the working directory, in
// slashes, or "" when dir is the working directory or lies outside it.
func sarifPrefix(dir string) string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	rel, ok := fsguard.Rel(filepath.Clean(wd), abs)
	if !ok || rel == "." {
		return ""
	}
	return rel
}
