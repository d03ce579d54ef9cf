package agentfiles

import (
	"github.com/ctxls/ctxls/providers/document"
)

// settingsDocsURL is where Claude Code documents every setting.
const settingsDocsURL = "https://code.claude.com/docs/en/settings"

// settingFields returns the settings keys as fields, sorted by name, for
// completion and hover.
func settingFields() []Field {
	names := mapKeysOf(settingKeys)
	out := make([]Field, 0, len(names))
	for _, n := range names {
		k := settingKeys[n]
		if k.managed {
			continue // not read from a project's settings
		}
		doc := k.doc
		if doc == "" {
			doc = "See " + settingsDocsURL + "."
		}
		out = append(out, Field{Name: n, Type: k.kind.String(), Doc: doc, Values: k.values})
	}
	return out
}

// SettingSpot returns what the cursor at byte offset off is on in a
// settings file: a top-level key (inside its quotes, or where one can be
// typed) or the string value of one. It reads the text as it is being
// typed, which need not be valid JSON.
func SettingSpot(text []byte, off int) (Spot, bool) {
	spot, ok := jsonSpotAt(text, off)
	if !ok || len(spot.path) != 0 {
		return Spot{}, false
	}
	return spot.Spot, true
}

// completeSettings returns the keys, or the values of a key, that can be
// typed at byte offset off of a settings file; ok is always true, as
// nothing else completes in the file.
func completeSettings(text []byte, off int) ([]Completion, document.Span, bool) {
	spot, ok := SettingSpot(text, off)
	if !ok {
		// Nothing to offer here, but nothing else completes in the file.
		return nil, document.Span{Start: off, End: off}, true
	}
	quoted := spot.Replace.Start > 0 && text[spot.Replace.Start-1] == '"'
	var items []Completion
	if !spot.Value {
		for _, f := range settingFields() {
			insert := f.Name
			if !quoted {
				insert = `"` + f.Name + `": `
			}
			items = append(items, Completion{Label: f.Name, Insert: insert, Detail: f.Type, Doc: f.Doc})
		}
		return items, spot.Replace, true
	}
	k, known := settingKeys[spot.Key]
	if !known {
		return nil, spot.Replace, true
	}
	values := k.values
	if spot.Key == "outputStyle" {
		values = builtinOutputStyles
	}
	for _, v := range values {
		items = append(items, Completion{Label: v, Insert: v, Detail: spot.Key, Doc: k.doc, Value: true})
	}
	return items, spot.Replace, true
}
