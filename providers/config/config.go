// Package config reads a workspace's .ctxls.yaml and merges the editor's
// ctxls.* settings over it.
package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ctxls/ctxls/providers/agentfacts"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/tokens"
)

// FileName is the configuration file at the workspace root.
const FileName = ".ctxls.yaml"

// Defaults.
const (
	defaultDriftThreshold = 0.25
	DefaultBudgetFiles    = 6
	DefaultBudgetTokens   = 16000
	defaultMaxFileSize    = 8 << 20
	DefaultExecTimeout    = 10 * time.Minute
	defaultHistoryShare   = 0.25
)

// Config is the effective configuration of a workspace.
type Config struct {
	// ContextRoots are extra context root directories, relative to the
	// workspace; directories named "context" are always roots.
	ContextRoots []string `yaml:"contextRoots" json:"contextRoots,omitempty"`
	// CommandRoots are extra command directories; directories named
	// "commands" outside context roots are always command roots.
	CommandRoots []string `yaml:"commandRoots" json:"commandRoots,omitempty"`
	// Ignore lists directory names or slash-separated glob patterns,
	// relative to the workspace, that are never read (nor watched). They
	// come on top of what is never read anyway: version control,
	// dependency, virtual-environment and cache directories, other hidden
	// directories unless they lead to a configured root, and build, dist
	// and target at the top of the workspace (see discover.Filter).
	Ignore []string `yaml:"ignore" json:"ignore,omitempty"`
	// Include lists paths or slash-separated globs, relative to the
	// workspace, that are read although git ignores them (.gitignore,
	// .git/info/exclude, the global excludes file); the folders on the
	// way to them are entered. Ignore and the folders never read win.
	Include []string `yaml:"include" json:"include,omitempty"`
	// Tokenizer names the token encoding (see package tokens).
	Tokenizer string `yaml:"tokenizer" json:"tokenizer"`
	// TokenizerChosen reports that .ctxls.yaml or the editor's settings
	// name the tokenizer, which then stands over the tokenizer of an
	// agent or model that a count is for.
	TokenizerChosen bool `yaml:"-" json:"-"`
	// DriftThreshold is the relative difference between declared and
	// measured tokens beyond which a warning is given (0.25 = 25 %).
	DriftThreshold float64 `yaml:"driftThreshold" json:"driftThreshold"`
	// Budget limits what the loading protocol materializes for one prompt.
	Budget Budget `yaml:"budget" json:"budget"`
	// Executor runs chain steps.
	Executor Executor `yaml:"executor" json:"executor"`
	// Chains are named command chains, in file order.
	Chains []Chain `yaml:"-" json:"chains,omitempty"`
	// Models maps a model name to its context window and history share.
	Models map[string]Model `yaml:"models" json:"models,omitempty"`
	// DefaultModel names the model used when a request names none.
	DefaultModel string `yaml:"defaultModel" json:"defaultModel,omitempty"`
	// MaxFileSize is the size in bytes above which a file is skipped.
	MaxFileSize int64 `yaml:"maxFileSize" json:"maxFileSize"`
	// Disable lists diagnostic codes that are not reported.
	Disable []string `yaml:"disable" json:"disable,omitempty"`
	// Limits are the sizes past which agent files are flagged.
	Limits Limits `yaml:"limits" json:"limits"`
	// Agents names the installed version of each agent, by the names of
	// the agent facts (claude, codex, …); an agent left out follows its
	// newest documented behaviour.
	Agents map[string]AgentSetting `yaml:"agents" json:"agents,omitempty"`

	// lines index the text of .ctxls.yaml the configuration was parsed
	// from, where its problems are; nil for the defaults.
	lines *document.Lines
}

// Lines returns the lines of the text of .ctxls.yaml that c was parsed
// from, which the lines of its problems count: nil when c was read from
// no file.
func (c *Config) Lines() *document.Lines { return c.lines }

// AgentSetting is what .ctxls.yaml says about one agent.
type AgentSetting struct {
	// Version is the installed version, such as "2.1.300".
	Version string `yaml:"version" json:"version,omitempty"`
}

// AgentVersion returns the configured version of an agent, "" for the
// newest documented behaviour.
func (c *Config) AgentVersion(agent string) string {
	if c == nil {
		return ""
	}
	return c.Agents[agent].Version
}

// Budget is the loading protocol's limit per prompt.
type Budget struct {
	Files  int `yaml:"files" json:"files"`
	Tokens int `yaml:"tokens" json:"tokens"`
}

// Executor configures how chain steps run.
type Executor struct {
	// Kind is "preview" (record prompts, run nothing) or "exec".
	Kind string `yaml:"kind" json:"kind"`
	// Command is the argv of the agent program for kind exec; the prompt
	// arrives on its standard input.
	Command []string `yaml:"command" json:"command,omitempty"`
	// Timeout bounds one step.
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// CommandFromSettings reports that Command comes from the editor's
	// settings, the user's own, rather than from the workspace's
	// .ctxls.yaml, which a cloned repository chooses: only the latter
	// needs the user's consent before it runs.
	CommandFromSettings bool `yaml:"-" json:"-"`
}

// Chain is a named, ordered list of command names.
type Chain struct {
	Name     string   `json:"name"`
	Commands []string `json:"commands"`
	// Line is the zero-based line of the chain's name in .ctxls.yaml, -1
	// when it does not come from the file.
	Line int `json:"-"`
}

// Model is a model's prompt budget.
type Model struct {
	// ContextWindow is the model's context size in tokens.
	ContextWindow int `yaml:"contextWindow" json:"contextWindow"`
	// HistoryShare is the fraction of the window given to history.
	HistoryShare float64 `yaml:"historyShare" json:"historyShare"`
	// HistoryTokens, when set, is an absolute history budget that
	// overrides HistoryShare.
	HistoryTokens int `yaml:"historyTokens" json:"historyTokens,omitempty"`
	// Tokenizer, when set, is the encoding the model counts in; else it
	// follows from the model's name where tokens.ForModel knows it.
	Tokenizer string `yaml:"tokenizer" json:"tokenizer,omitempty"`
}

// HistoryBudget returns the number of tokens of history this model allows.
func (m Model) HistoryBudget() int {
	if m.HistoryTokens > 0 {
		return m.HistoryTokens
	}
	share := m.HistoryShare
	if share <= 0 {
		share = defaultHistoryShare
	}
	return int(float64(m.ContextWindow) * share)
}

// Duration is a time.Duration written as "10m" or "90s" in YAML and JSON.
type Duration struct{ time.Duration }

// UnmarshalYAML parses a duration string or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	return d.parse(n.Value)
}

// UnmarshalJSON parses a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	return d.parse(strings.Trim(string(b), `"`))
}

// MarshalJSON writes the duration as a string such as "10m0s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

func (d *Duration) parse(s string) error {
	if s == "" {
		d.Duration = 0
		return nil
	}
	if v, err := time.ParseDuration(s); err == nil {
		d.Duration = v
		return nil
	}
	var secs float64
	if _, err := fmt.Sscanf(s, "%g", &secs); err == nil {
		d.Duration = time.Duration(secs * float64(time.Second))
		return nil
	}
	return fmt.Errorf("invalid duration %q (want e.g. 90s or 10m)", s)
}

// Problem is something wrong in the configuration file.
type Problem struct {
	// Line is the zero-based line in .ctxls.yaml, or -1.
	Line int
	// Severity is "error" or "warning".
	Severity string
	// Message says what is wrong and what was used instead.
	Message string
	// key is the path of the setting at fault, its names joined by
	// keySep, so that Parse can point at its line.
	key string
}

// keySep joins the names of a setting's path; it cannot occur in a YAML
// key that anyone writes.
const keySep = "\x00"

func (p Problem) String() string {
	if p.Line >= 0 {
		return fmt.Sprintf("%s:%d: %s", FileName, p.Line+1, p.Message)
	}
	return fmt.Sprintf("%s: %s", FileName, p.Message)
}

// Default returns the configuration used when there is no file.
func Default() *Config {
	return &Config{
		Tokenizer:      tokens.Default,
		DriftThreshold: defaultDriftThreshold,
		Budget:         Budget{Files: DefaultBudgetFiles, Tokens: DefaultBudgetTokens},
		Executor:       Executor{Kind: "preview", Timeout: Duration{DefaultExecTimeout}},
		MaxFileSize:    defaultMaxFileSize,
		Limits:         defaultLimits(),
	}
}

// Load reads dir/.ctxls.yaml. A missing file gives the defaults. Problems
// in the file never stop loading: the offending values keep their defaults
// and each is reported.
//
// The file passes the check every file read from the workspace passes: a
// symbolic link that leaves the workspace, a named pipe or a file above
// maxConfigSize is reported as a problem, and the defaults are used.
func Load(dir string) (*Config, []Problem, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Default(), nil, fmt.Errorf("read %s: %w", FileName, err)
	}
	path := filepath.Join(abs, FileName)
	data, err := fsguard.NewRoot(abs).ReadFile(context.Background(), path, maxConfigSize)
	var big *fsguard.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Default(), nil, nil
	case errors.Is(err, fsguard.ErrOutsideWorkspace), errors.Is(err, fsguard.ErrNotRegular), errors.As(err, &big), err != nil && fsguard.IsLoop(err):
		return Default(), []Problem{{Line: -1, Severity: "error", Message: fmt.Sprintf("not read: %v; the defaults are used", unwrapPath(err))}}, nil
	case err != nil:
		return Default(), nil, fmt.Errorf("read %s: %w", FileName, err)
	}
	cfg, problems := Parse(data)
	return cfg, problems, nil
}

// maxConfigSize bounds .ctxls.yaml, which holds a few dozen lines: yaml.v3
// needs more than a second per megabyte of some inputs.
const maxConfigSize = 256 << 10

// unwrapPath returns the error of a *fs.PathError without its path: a
// problem of .ctxls.yaml is reported on that file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// known lists the top-level keys of .ctxls.yaml.
var known = map[string]bool{
	"contextRoots": true, "commandRoots": true, "ignore": true, "include": true, "tokenizer": true,
	"driftThreshold": true, "budget": true, "executor": true, "chains": true,
	"models": true, "defaultModel": true, "maxFileSize": true,
	"disable": true, "limits": true, "agents": true,
}

// Parse parses the content of a .ctxls.yaml file. The configuration
// keeps data, which the caller must not change.
func Parse(data []byte) (*Config, []Problem) {
	cfg := Default()
	cfg.lines = document.NewLines(data)
	var problems []Problem
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return cfg, []Problem{{Line: -1, Severity: "error", Message: fmt.Sprintf("cannot parse (%v); using defaults", err)}}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return cfg, []Problem{{Line: 0, Severity: "error", Message: "must be a mapping of settings; using defaults"}}
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		if !known[key.Value] {
			problems = append(problems, Problem{Line: key.Line - 1, Severity: "warning", Message: fmt.Sprintf("unknown setting %q is ignored", key.Value)})
			continue
		}
		if key.Value == "chains" {
			problems = append(problems, decodeChains(cfg, val)...)
			continue
		}
		if key.Value == "tokenizer" {
			cfg.TokenizerChosen = true
		}
		if key.Value == "maxFileSize" {
			if n, err := parseSize(val.Value); err != nil || val.Kind != yaml.ScalarNode {
				problems = append(problems, Problem{Line: val.Line - 1, Severity: "error",
					Message: fmt.Sprintf("maxFileSize: %q is not a size (write 16MB, 512KiB or a number of bytes); using the default", val.Value)})
			} else {
				cfg.MaxFileSize = n
			}
			continue
		}
		// Decode each key on its own so one bad value spoils only itself.
		one := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{key, val}}
		if err := one.Decode(cfg); err != nil {
			problems = append(problems, Problem{Line: val.Line - 1, Severity: "error", Message: fmt.Sprintf("%s: %v; using the default", key.Value, cleanYAMLErr(err))})
			def := Default()
			restoreDefault(cfg, def, key.Value)
		}
	}
	for _, p := range cfg.validate() {
		p.Line = keyLine(root, p.key)
		problems = append(problems, p)
	}
	return cfg, problems
}

// keyLine returns the zero-based line of the setting at path (names joined
// by keySep) in the mapping root: of its deepest key present, so that a
// value that was defaulted because it is missing points at its parent.
func keyLine(root *yaml.Node, path string) int {
	if path == "" {
		return -1
	}
	line, n := -1, root
	for name := range strings.SplitSeq(path, keySep) {
		if n == nil || n.Kind != yaml.MappingNode {
			break
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == name {
				line, next = n.Content[i].Line-1, n.Content[i+1]
				break
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return line
}

// ParseSize parses a size in bytes: a number, optionally followed by a unit
// B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024), with or
// without a space between, case-insensitively.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	mult, ok := sizeUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q", s, unit)
	}
	v *= mult
	if v < 0 || v >= math.MaxInt64 {
		return 0, fmt.Errorf("invalid size %q: out of range", s)
	}
	return int64(v), nil
}

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
}

func cleanYAMLErr(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return strings.TrimPrefix(te.Errors[0], "yaml: ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

func restoreDefault(cfg, def *Config, key string) {
	switch key {
	case "budget":
		cfg.Budget = def.Budget
	case "executor":
		cfg.Executor = def.Executor
	case "driftThreshold":
		cfg.DriftThreshold = def.DriftThreshold
	case "maxFileSize":
		cfg.MaxFileSize = def.MaxFileSize
	case "tokenizer":
		cfg.Tokenizer = def.Tokenizer
	case "models":
		cfg.Models = nil
	case "disable":
		cfg.Disable = nil
	case "limits":
		cfg.Limits = def.Limits
	case "agents":
		cfg.Agents = nil
	}
}

func decodeChains(cfg *Config, n *yaml.Node) []Problem {
	if n.Kind != yaml.MappingNode {
		return []Problem{{Line: n.Line - 1, Severity: "error", Message: "chains must map a chain name to a list of commands"}}
	}
	var problems []Problem
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, list := n.Content[i], n.Content[i+1]
		var cmds []string
		if err := list.Decode(&cmds); err != nil || len(cmds) == 0 {
			problems = append(problems, Problem{Line: list.Line - 1, Severity: "error", Message: fmt.Sprintf("chain %q must be a non-empty list of command names", name.Value)})
			continue
		}
		cfg.Chains = append(cfg.Chains, Chain{Name: name.Value, Commands: cmds, Line: name.Line - 1})
	}
	return problems
}

// validate checks values and replaces unusable ones by defaults, returning
// what it changed.
func (c *Config) validate() []Problem {
	var p []Problem
	def := Default()
	bad := func(key []string, format string, args ...any) {
		p = append(p, Problem{Line: -1, Severity: "error", Message: fmt.Sprintf(format, args...), key: strings.Join(key, keySep)})
	}
	if _, err := tokens.New(c.Tokenizer); err != nil {
		bad([]string{"tokenizer"}, "%v; using %s", err, def.Tokenizer)
		c.Tokenizer = def.Tokenizer
		c.TokenizerChosen = false
	}
	if c.DriftThreshold <= 0 {
		bad([]string{"driftThreshold"}, "driftThreshold must be above 0 (0.25 means 25 %%); using %g", def.DriftThreshold)
		c.DriftThreshold = def.DriftThreshold
	}
	if c.Budget.Files < 1 {
		bad([]string{"budget", "files"}, "budget.files must be at least 1; using %d", def.Budget.Files)
		c.Budget.Files = def.Budget.Files
	}
	if c.Budget.Tokens < 1 {
		bad([]string{"budget", "tokens"}, "budget.tokens must be at least 1; using %d", def.Budget.Tokens)
		c.Budget.Tokens = def.Budget.Tokens
	}
	switch c.Executor.Kind {
	case "":
		c.Executor.Kind = "preview"
	case "preview":
	case "exec":
		if len(c.Executor.Command) == 0 {
			bad([]string{"executor", "command"}, "executor.command is required when executor.kind is exec; using the preview executor")
			c.Executor.Kind = "preview"
		}
	default:
		bad([]string{"executor", "kind"}, "executor.kind %q is not preview or exec; using preview", c.Executor.Kind)
		c.Executor.Kind = "preview"
	}
	if c.Executor.Timeout.Duration <= 0 {
		c.Executor.Timeout = def.Executor.Timeout
	}
	if c.MaxFileSize <= 0 {
		bad([]string{"maxFileSize"}, "maxFileSize must be above 0; using %d", def.MaxFileSize)
		c.MaxFileSize = def.MaxFileSize
	}
	for name, m := range c.Models {
		switch {
		case m.ContextWindow <= 0:
			bad([]string{"models", name, "contextWindow"}, "model %q: contextWindow must be a positive number of tokens; model ignored", name)
			delete(c.Models, name)
		case m.HistoryShare < 0 || m.HistoryShare >= 1:
			bad([]string{"models", name, "historyShare"}, "model %q: historyShare %g must be at least 0 and below 1 (the history cannot take the whole window); model ignored", name, m.HistoryShare)
			delete(c.Models, name)
		case m.HistoryTokens < 0 || m.HistoryTokens >= m.ContextWindow:
			bad([]string{"models", name, "historyTokens"}, "model %q: historyTokens %d must be below the context window %d; model ignored", name, m.HistoryTokens, m.ContextWindow)
			delete(c.Models, name)
		case m.Tokenizer != "":
			if _, err := tokens.New(m.Tokenizer); err != nil {
				bad([]string{"models", name, "tokenizer"}, "model %q: %v; counting with %s", name, err, c.TokenizerFor(name))
				m.Tokenizer = ""
				c.Models[name] = m
			}
		}
	}
	p = append(p, c.Limits.validate()...)
	for name, a := range c.Agents {
		if _, ok := agentfacts.Lookup(name); !ok {
			bad([]string{"agents", name}, "agents: %q is not an agent ctxls knows (%s); ignored", name, strings.Join(agentfacts.Names(), ", "))
			delete(c.Agents, name)
			continue
		}
		if a.Version != "" && !agentfacts.ValidVersion(a.Version) {
			bad([]string{"agents", name, "version"}, "agents.%s.version %q is not a version such as 2.1.300; the newest documented behaviour is used", name, a.Version)
			delete(c.Agents, name)
		}
	}
	for _, code := range c.Disable {
		if _, ok := diag.Lookup(code); !ok {
			p = append(p, Problem{Line: -1, Severity: "warning", Message: fmt.Sprintf("disable: %q is not a diagnostic code of ctxls, so it turns nothing off", code)})
		}
	}
	if c.DefaultModel != "" {
		if _, ok := c.Models[c.DefaultModel]; !ok {
			bad([]string{"defaultModel"}, "defaultModel %q is not among the models; no default model", c.DefaultModel)
			c.DefaultModel = ""
		}
	}
	return p
}

// Chain returns the named chain.
func (c *Config) Chain(name string) (Chain, bool) {
	for _, ch := range c.Chains {
		if ch.Name == name {
			return ch, true
		}
	}
	return Chain{}, false
}

// UnknownChainCommands reports, at the chain's line, each command of a
// chain that names no command (as isCommand tells, given the name without
// a leading slash): running that chain would fail at that step. Chains do
// not nest, so the name of another chain is no command either.
func (c *Config) UnknownChainCommands(isCommand func(name string) bool) []Problem {
	var p []Problem
	for _, ch := range c.Chains {
		for _, cmd := range ch.Commands {
			name := strings.TrimPrefix(cmd, "/")
			if isCommand(name) {
				continue
			}
			p = append(p, Problem{Line: ch.Line, Severity: "error",
				Message: fmt.Sprintf("chain %q names %q, which is no command of the workspace", ch.Name, cmd)})
		}
	}
	return p
}

// Model returns the named model, or the default model when name is "".
func (c *Config) Model(name string) (string, Model, bool) {
	if name == "" {
		name = c.DefaultModel
	}
	m, ok := c.Models[name]
	return name, m, ok
}

// TokenizerFor returns the encoding the named model counts in: the
// model's own tokenizer setting, else the one its name implies, else the
// workspace's. An empty name is the default model.
func (c *Config) TokenizerFor(model string) string {
	n, m, ok := c.Model(model)
	if ok && m.Tokenizer != "" {
		if _, err := tokens.New(m.Tokenizer); err == nil {
			return m.Tokenizer
		}
	}
	if t, known := tokens.ForModel(n); known {
		return t
	}
	return c.Tokenizer
}

// clone returns a deep copy.
func (c *Config) clone() *Config {
	out := *c
	out.ContextRoots = append([]string(nil), c.ContextRoots...)
	out.CommandRoots = append([]string(nil), c.CommandRoots...)
	out.Ignore = append([]string(nil), c.Ignore...)
	out.Include = append([]string(nil), c.Include...)
	out.Disable = append([]string(nil), c.Disable...)
	out.Executor.Command = append([]string(nil), c.Executor.Command...)
	out.Chains = make([]Chain, len(c.Chains))
	for i, ch := range c.Chains {
		out.Chains[i] = Chain{Name: ch.Name, Commands: append([]string(nil), ch.Commands...), Line: ch.Line}
	}
	if c.Models != nil {
		out.Models = make(map[string]Model, len(c.Models))
		for k, v := range c.Models {
			out.Models[k] = v
		}
	}
	return &out
}

// IgnoredDir reports whether a directory with this base name is never
// read, whatever the configuration: version control, dependencies, test
// fixtures (testdata, broken on purpose), virtual environments, tool
// caches and ctxls's own state folder. The library and agent-file
// discovery both skip them, besides what .ctxls.yaml's ignore adds.
func IgnoredDir(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", ".ctxls",
		"node_modules", "bower_components", "vendor", "testdata",
		"__pycache__", "venv", ".venv", ".tox", ".nox",
		".mypy_cache", ".pytest_cache", ".ruff_cache",
		".next", ".nuxt", ".cache", ".gradle", ".terraform":
		return true
	}
	return false
}
