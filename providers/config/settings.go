package config

import (
	"encoding/json"
	"fmt"
)

// Settings are the editor's ctxls.* settings. Fields left nil keep the
// value from .ctxls.yaml.
type Settings struct {
	Tokenizer      *string  `json:"tokenizer,omitempty"`
	DriftThreshold *float64 `json:"driftThreshold,omitempty"`
	Budget         *struct {
		Files  *int `json:"files,omitempty"`
		Tokens *int `json:"tokens,omitempty"`
	} `json:"budget,omitempty"`
	Executor *struct {
		Kind    *string   `json:"kind,omitempty"`
		Command []string  `json:"command,omitempty"`
		Timeout *Duration `json:"timeout,omitempty"`
	} `json:"executor,omitempty"`
	ContextRoots []string `json:"contextRoots,omitempty"`
	CommandRoots []string `json:"commandRoots,omitempty"`
	// Disable adds diagnostic codes to .ctxls.yaml's disable list.
	Disable []string `json:"disable,omitempty"`
}

// ParseSettings decodes the "ctxls" object of the editor's settings. It
// accepts either {"ctxls": {...}} or the inner object itself.
func ParseSettings(raw json.RawMessage) (*Settings, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return &Settings{}, nil
	}
	var wrapper struct {
		Ctxls json.RawMessage `json:"ctxls"`
	}
	if err := json.Unmarshal(raw, &wrapper); err == nil && len(wrapper.Ctxls) > 0 {
		raw = wrapper.Ctxls
	}
	var s Settings
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("decode ctxls settings: %w", err)
	}
	return &s, nil
}

// Apply returns a copy of c with the settings laid over it, validated.
func (c *Config) Apply(s *Settings) (*Config, []Problem) {
	out := c.clone()
	if s == nil {
		return out, nil
	}
	if s.Tokenizer != nil && *s.Tokenizer != "" {
		out.Tokenizer = *s.Tokenizer
		out.TokenizerChosen = true
	}
	if s.DriftThreshold != nil {
		out.DriftThreshold = *s.DriftThreshold
	}
	if s.Budget != nil {
		if s.Budget.Files != nil {
			out.Budget.Files = *s.Budget.Files
		}
		if s.Budget.Tokens != nil {
			out.Budget.Tokens = *s.Budget.Tokens
		}
	}
	if e := s.Executor; e != nil {
		if e.Kind != nil && *e.Kind != "" {
			out.Executor.Kind = *e.Kind
		}
		if len(e.Command) > 0 {
			out.Executor.Command = append([]string(nil), e.Command...)
			out.Executor.CommandFromSettings = true
		}
		if e.Timeout != nil && e.Timeout.Duration > 0 {
			out.Executor.Timeout = *e.Timeout
		}
	}
	if len(s.ContextRoots) > 0 {
		out.ContextRoots = append(out.ContextRoots, s.ContextRoots...)
	}
	if len(s.CommandRoots) > 0 {
		out.CommandRoots = append(out.CommandRoots, s.CommandRoots...)
	}
	if len(s.Disable) > 0 {
		out.Disable = append(out.Disable, s.Disable...)
	}
	return out, out.validate()
}
