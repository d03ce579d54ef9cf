package library

// AlwaysLoad reports whether every invocation in the topic's domain loads
// it: its loading strategy is "always" or its type is "always".
func (t *Topic) AlwaysLoad() bool {
	return t.Meta.LoadingStrategy == "always" || t.Meta.Type == "always"
}
