package history

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
)

// fallbackContextWindow is the context window assumed when the
// configuration names no model; the budget then follows this stand-in model
// (named fallbackModel) with the default history share.
const fallbackContextWindow = 128000

// fallbackModel is the name reported for the stand-in model.
const fallbackModel = "default"

// ModelBudget is the effective prompt budget of a model.
type ModelBudget struct {
	// Model is the model's name.
	Model string `json:"model"`
	// Window is the model's context window in tokens.
	Window int `json:"contextWindow"`
	// History is the part of the window given to history.
	History int `json:"historyBudget"`
	// Fallback reports that the configuration names no model and the
	// stand-in was used.
	Fallback bool `json:"fallback,omitempty"`
}

// BudgetFor returns the budget of the named model, or of the configured
// default model when name is "". Without any configured model, the
// stand-in model "default" is used (Fallback set); naming a model that is not
// configured is an error that lists those that are.
func BudgetFor(cfg *config.Config, name string) (ModelBudget, error) {
	if cfg == nil || len(cfg.Models) == 0 {
		if name != "" && name != fallbackModel {
			return ModelBudget{}, fmt.Errorf("%w: unknown model %q: no models are configured (add models: to .ctxls.yaml)", ErrInvalid, name)
		}
		m := config.Model{ContextWindow: fallbackContextWindow}
		return ModelBudget{Model: fallbackModel, Window: m.ContextWindow, History: m.HistoryBudget(), Fallback: true}, nil
	}
	n, m, ok := cfg.Model(name)
	if !ok {
		if name == "" {
			// Models but no default: a single model is the obvious one.
			if len(cfg.Models) == 1 {
				for k, v := range cfg.Models {
					n, m, ok = k, v, true
				}
			}
			if !ok {
				return ModelBudget{}, fmt.Errorf("%w: no model named and no defaultModel configured (models: %s)", ErrInvalid, modelNames(cfg))
			}
		} else {
			return ModelBudget{}, fmt.Errorf("%w: unknown model %q (models: %s)", ErrInvalid, name, modelNames(cfg))
		}
	}
	b := ModelBudget{Model: n, Window: m.ContextWindow, History: m.HistoryBudget()}
	if b.History <= 0 {
		b.History = 1
	}
	return b, nil
}

func modelNames(cfg *config.Config) string {
	var names []string
	for k := range cfg.Models {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Strategy kinds of StrategySpec.
const (
	KindRecent      = "recent"
	KindTokenBudget = "tokenBudget"
)

// StrategySpec is the JSON form of a strategy:
// {kind: "recent"|"tokenBudget", maxMessages?, tokenBudget?}.
type StrategySpec struct {
	Kind        string `json:"kind"`
	MaxMessages *int   `json:"maxMessages,omitempty"`
	TokenBudget *int   `json:"tokenBudget,omitempty"`
}

// NewStrategy returns the strategy of spec under the model budget b. An
// empty kind is tokenBudget; a tokenBudget strategy without a budget uses the
// model's history budget, and a budget above the model's window is lowered to
// the window (with a warning). Zero or negative counts are errors.
func NewStrategy(spec StrategySpec, b ModelBudget) (s Strategy, warnings []string, err error) {
	switch spec.Kind {
	case KindRecent:
		if spec.MaxMessages == nil {
			return nil, nil, fmt.Errorf("%w: strategy recent needs maxMessages", ErrInvalid)
		}
		if *spec.MaxMessages <= 0 {
			return nil, nil, fmt.Errorf("%w: strategy recent: maxMessages %d must be above 0", ErrInvalid, *spec.MaxMessages)
		}
		return recent{N: *spec.MaxMessages}, nil, nil
	case KindTokenBudget, "":
		budget := b.History
		if spec.TokenBudget != nil {
			budget = *spec.TokenBudget
			if budget <= 0 {
				return nil, nil, fmt.Errorf("%w: strategy tokenBudget: tokenBudget %d must be above 0", ErrInvalid, budget)
			}
			if b.Window > 0 && budget >= b.Window {
				warnings = append(warnings, fmt.Sprintf("tokenBudget %d is not below the context window of model %s (%d); using %d",
					budget, b.Model, b.Window, b.History))
				budget = b.History
			}
		}
		return tokenBudget{Tokens: budget}, warnings, nil
	}
	return nil, nil, fmt.Errorf("%w: strategy kind %q is not recent or tokenBudget", ErrInvalid, spec.Kind)
}

// BuildSpec is the JSON form of a build request, as ctxls/history/buildContext
// takes it.
type BuildSpec struct {
	Strategy  StrategySpec   `json:"strategy"`
	Formatter *FormatOptions `json:"formatter,omitempty"`
	// Model names the configured model whose budget applies; "" is the
	// default model.
	Model string `json:"model,omitempty"`
}

// BuildFor builds the history context of a conversation as spec says, with
// the budget of the model spec names in cfg, and logs the effective budget.
// It returns the model budget used.
func (s *Store) BuildFor(ctx context.Context, conversationID string, spec BuildSpec, cfg *config.Config) (Context, ModelBudget, error) {
	b, err := BudgetFor(cfg, spec.Model)
	if err != nil {
		return Context{}, ModelBudget{}, err
	}
	strat, warnings, err := NewStrategy(spec.Strategy, b)
	if err != nil {
		return Context{}, b, err
	}
	var fo FormatOptions
	if spec.Formatter != nil {
		fo = *spec.Formatter
	}
	f, err := newLineFormatter(fo)
	if err != nil {
		return Context{}, b, err
	}
	s.log.Info("history budget", "conversation", conversationID, "model", b.Model, "contextWindow", b.Window,
		"historyBudget", b.History, "fallback", b.Fallback, "strategy", strategyName(strat), "budget", strat.Budget())
	out, err := s.buildContext(ctx, conversationID, buildRequest{Strategy: strat, Formatter: f, Model: b.Model})
	if err != nil {
		return Context{}, b, err
	}
	if b.Fallback {
		warnings = append(warnings, fmt.Sprintf("no models configured in .ctxls.yaml; assuming a %d-token context window", b.Window))
	}
	out.Warnings = append(out.Warnings, warnings...)
	return out, b, nil
}

func strategyName(s Strategy) string {
	switch s.(type) {
	case recent:
		return KindRecent
	case tokenBudget:
		return KindTokenBudget
	}
	return fmt.Sprintf("%T", s)
}
