package agentfiles

func (c *checker) command()    {}
func (c *checker) subagent()   {}
func (c *checker) pluginJSON() {}
func (c *checker) agentsMd()   {}
func (c *checker) cursorRule() {}
func (c *checker) copilot()    {}
