package tokens

import (
	"strconv"
	"strings"
)

// ForModel returns the encoding a model counts its prompt in, from the
// model's name: Claude models by family (claude-opus-4-6 counts with
// claude-3, claude-opus-4-7 with claude-4.7, claude-sonnet-5 with
// claude-5), OpenAI's current models with o200k_base and GPT-4 and
// GPT-3.5 with cl100k_base. It reports false for a model it does not
// know.
func ForModel(model string) (string, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimPrefix(m, "anthropic/")
	m = strings.TrimPrefix(m, "openai/")
	switch {
	case strings.HasPrefix(m, "claude"):
		return claudeFamily(m)
	case strings.HasPrefix(m, "gpt-4o"), strings.HasPrefix(m, "gpt-4.1"), strings.HasPrefix(m, "gpt-4.5"),
		strings.HasPrefix(m, "gpt-5"), strings.HasPrefix(m, "o1"), strings.HasPrefix(m, "o3"),
		strings.HasPrefix(m, "o4"), strings.HasPrefix(m, "codex"), strings.HasPrefix(m, "gpt-oss"):
		return O200kBase, true
	case strings.HasPrefix(m, "gpt-4"), strings.HasPrefix(m, "gpt-3.5"):
		return Cl100kBase, true
	}
	return "", false
}

// claudeFamily routes a Claude model name by its version, which either
// leads (claude-3-5-sonnet-20241022) or follows the tier
// (claude-opus-4-6, claude-sonnet-5): below 4.7 is claude-3, below 5 is
// claude-4.7, and from 5 on claude-5. "claude" alone is the newest.
func claudeFamily(m string) (string, bool) {
	if m == "claude" {
		return Claude, true
	}
	var nums []int
	for _, part := range strings.FieldsFunc(m, func(r rune) bool { return r == '-' || r == '.' || r == '@' || r == ':' }) {
		n, err := strconv.Atoi(part)
		if err != nil {
			if len(nums) > 0 {
				break
			}
			continue
		}
		// A date stamp ends the version.
		if n >= 1000 {
			break
		}
		nums = append(nums, n)
	}
	if len(nums) == 0 {
		return "", false
	}
	major, minor := nums[0], 0
	if len(nums) > 1 {
		minor = nums[1]
	}
	switch {
	case major < 3:
		return "", false
	case major < 4 || major == 4 && minor < 7:
		return Claude3, true
	case major < 5:
		return Claude47, true
	}
	return Claude5, true
}
