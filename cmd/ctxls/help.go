package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// commandHelp is what a subcommand's help says besides its flags.
type commandHelp struct {
	// name is the subcommand as typed after "ctxls": "check", "chain run".
	name string
	// args is the synopsis of its arguments, without flags.
	args string
	// short is what ctxls help says of it, in one line.
	short string
	// doc describes it, in full lines.
	doc string
	// noFlags is set for a subcommand without flags.
	noFlags bool
}

// commands lists every subcommand, in the order help lists them. The
// README's command table has a row for each, and a test holds the two
// together.
var commands = []commandHelp{
	{name: "check", args: "[DIR]", short: "every diagnostic of the workspace; exit 1 on an error",
		doc: `Reports every diagnostic of the workspace DIR (default .): its context
library, its agent files and its .ctxls.yaml. Exits 1 when any is an
error. --fix applies the safe fixes, --fix-unsafe every fix; --dry-run
prints them as a diff. When DIR holds nothing ctxls recognises it says
what it looks for.`},
	{name: "catalog", args: "[DIR]", short: "topics, skills, commands, subagents and rules with their token costs",
		doc: `Lists every topic, skill, command, subagent and rule with its measured
token cost, and a topic's type, loading strategy and declared cost. The
catalog serves every agent, so it counts in the library's tokenizer
(.ctxls.yaml's tokenizer, o200k_base by default); ctxls cost counts a
session in its agent's own. Given one --tokenizer, both give a file the
same figure.`},
	{name: "cost", args: "[DIR]", short: "what a session of an agent started in DIR loads, in tokens",
		doc: `Tells what a session of the agent started in DIR (default .) loads: at
start, and later on demand, with measured tokens.`},
	{name: "search", args: "QUERY [DIR]", short: "topics, skills, commands, subagents and rules matching QUERY, best first",
		doc: `Finds topics whose tags, section keywords, titles, detection triggers or
names match QUERY, and skills, commands, subagents and rules whose names,
descriptions or paths do, in one list, best first. Quote a QUERY of
several words. Token costs are counted as the catalog counts them.
Exits 0 when something matches, 1 when nothing does.`},
	{name: "show", args: "domain:topic[#Section]", short: "print a topic, or one of its sections",
		doc: `Prints a topic's body without frontmatter, or only the named section,
exactly, so that it can be piped. Given a domain alone, it lists its topics.
JSON: {reference, title, tokens, tokenizer, path, content}.`},
	{name: "chain run", args: "COMMAND...", short: "run a chain of commands, recording every step",
		doc: `Runs a chain of commands (command names or names of chains from
.ctxls.yaml) with live progress, recording every step. Exits 1 when the
chain does not complete.`},
	{name: "chain preview", args: "COMMAND...", short: "what each step of a chain would load and send",
		doc: `Shows what each step of a chain would load and send, without running or
recording anything.`},
	{name: "chain list", args: "", short: "configured chains and recorded executions",
		doc: `Lists the configured chains and the recorded executions, newest first,
a page at a time; * marks the current one. When older executions remain,
it prints the cursor that lists them (--cursor).`},
	{name: "chain show", args: "[ID]", short: "one execution, step by step",
		doc: `Prints an execution (default: the current one) step by step.`},
	{name: "chain resume", args: "[ID]", short: "run an execution again from its first failed step",
		doc: `Runs an execution's chain again from its first step that did not
succeed (default: the current execution).`},
	{name: "chain use", args: "ID", short: "make an execution the current one",
		doc: `Makes an execution the current one.`},
	{name: "chain delete", args: "ID", short: "delete an execution and what it recorded",
		doc: `Deletes an execution and everything it recorded. It asks for the
confirmation token it prints to be typed back, unless --yes is given.`},
	{name: "trust", args: "[show|grant|revoke]", short: "whether the workspace's exec executor may run; agree or take it back",
		doc: `Shows whether the exec executor that the workspace's .ctxls.yaml names
may run (show, the default), agrees to run it in this workspace (grant),
or forgets that (revoke). Chains run such an executor only once it is
agreed to, and ask again when its command line, or the content of a
program of the workspace that it runs, changes. Agreements are kept in
the user's configuration directory ($CTXLS_CONFIG_DIR, else
~/.config/ctxls on Linux), never in the workspace.`},
	{name: "history", args: "[CONVERSATION]", short: "conversations, one conversation, or the next prompt's history",
		doc: `Without a conversation, lists the conversations recorded in the
workspace. With one, prints its messages, oldest first; --context prints
instead what the next prompt would receive as history, within the
model's budget.`},
	{name: "tokens", args: "[FILE...]", short: "count the tokens of files, or of standard input",
		doc: `Counts the tokens of each FILE (- or none: standard input) in the
workspace's tokenizer, --tokenizer's or --model's. A file's count is what
it adds to a prompt; --message counts it as one user message, the frame
included, as Claude's count_tokens reports it. JSON: one object per file,
{file, tokens, tokenizer}.`},
	{name: "serve", args: "", short: "the language server, over stdin and stdout",
		doc: `Runs the ctxls language server over stdin and stdout.`},
	{name: "mcp", args: "", short: "the MCP server for coding agents, over stdin and stdout",
		doc: `Serves the workspace to coding agents over the Model Context Protocol on
stdin and stdout: tools catalog, search, load_context, check and
session_cost, and every topic and skill as a ctxls:// resource.`},
	{name: "bench", args: "", short: "measure indexing, search and diagnostics",
		doc: `Measures cold indexing, one-file re-indexing, search, diagnostics and
memory. Without a library in --dir it generates one of --topics topics
(about 4 KB each, 50 domains).`},
	{name: "version", args: "", short: "the release, commit and Go version of this binary",
		doc: `Prints the release version, the commit the binary was built from (with
"local changes" when the tree had changes) and the Go version and platform.`, noFlags: true},
}

// helpFor returns the help of the named subcommand.
func helpFor(name string) (commandHelp, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return commandHelp{}, false
}

// synopsis is the usage line of a subcommand.
func (c commandHelp) synopsis(hasFlags bool) string {
	s := "ctxls " + c.name
	if c.args != "" {
		s += " " + c.args
	}
	if hasFlags {
		s += " [flags]"
	}
	return s
}

// printHelp writes the help of subcommand name in the layout every
// subcommand shares: the usage line, the description, the flags.
func printHelp(w io.Writer, name string, fs *flag.FlagSet) {
	c, _ := helpFor(name)
	hasFlags := false
	if fs != nil {
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	}
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", c.synopsis(hasFlags), c.doc)
	if !hasFlags {
		return
	}
	fmt.Fprintln(w, "\nFlags:")
	type row struct{ head, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		head := flagName(f.Name)
		switch arg {
		case "":
		case "string":
			head += " " + strings.ToUpper(f.Name)
		case "int":
			head += " N"
		default:
			head += " " + strings.ToUpper(arg)
		}
		if !isZeroDefault(f) {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		rows = append(rows, row{head, usage})
		width = max(width, len(head))
	})
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.head, r.usage)
	}
}

// isZeroDefault reports whether a flag's default says nothing worth
// printing.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false":
		return true
	}
	return false
}

// printUsageLine writes the short form a usage error ends with: the
// subcommand's usage line and where its help is.
func printUsageLine(w io.Writer, name string) {
	c, ok := helpFor(name)
	switch {
	case name == "chain":
		fmt.Fprint(w, chainUsage())
		return
	case !ok:
		fmt.Fprint(w, usage)
		return
	}
	fmt.Fprintf(w, "Usage: %s\nRun 'ctxls %s --help' for more.\n", c.synopsis(!c.noFlags), c.name)
}

// globalUsage is the help of ctxls itself: one line per command.
func globalUsage() string {
	var b strings.Builder
	b.WriteString("ctxls checks, measures and serves the files that give AI coding agents context.\n\nUsage: ctxls COMMAND [ARGUMENTS] [FLAGS]\n\nCommands:\n")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.synopsis(false))-len("ctxls "))
	}
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.synopsis(false)[len("ctxls "):], c.short)
	}
	fmt.Fprintf(&b, "  %-*s  %s\n", width, "help [COMMAND]", "this help, or a command's")
	b.WriteString(`
Every command but version takes --dir DIR for the workspace (default .);
check, catalog and search also take it as their last argument. Run
'ctxls COMMAND --help' for a command's flags.

Exit status: 0 when all went well, 1 when problems were found (check found
an error, search matched nothing, a chain did not complete), 2 on a usage
error, a missing or unreadable directory, or any other failure.
`)
	return b.String()
}

// topCommands are the words dispatch knows, for did-you-mean.
func topCommands() []string {
	names := []string{"help"}
	for _, c := range commands {
		name, _, _ := strings.Cut(c.name, " ")
		if len(names) == 0 || names[len(names)-1] != name {
			names = append(names, name)
		}
	}
	return names
}

// unknownCommand is the usage error of a word that names no command, with
// the command it most likely meant.
func unknownCommand(word string, known []string, cmd string) usageError {
	kind := "command"
	if cmd != "" {
		kind = cmd + " command"
	}
	msg := fmt.Sprintf("unknown %s %q", kind, word)
	if s, ok := suggest(word, known); ok {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return usageError{msg: msg, cmd: cmd, brief: cmd == ""}
}
