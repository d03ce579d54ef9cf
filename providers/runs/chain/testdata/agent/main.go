// Command agent stands in for an agent CLI in the chain tests: it reads the
// prompt on stdin and answers on stdout, and misbehaves on request (fails,
// hangs, floods, prints binary data or a broken shared block) for the
// commands named by its flags.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	var (
		logFile   = flag.String("log", "", "append one line per run: command step attempt")
		dump      = flag.String("dump", "", "write each prompt to DIR/COMMAND-ATTEMPT.txt")
		fail      = flag.String("fail", "", "exit 3 for these commands (comma-separated)")
		failOnce  = flag.String("failonce", "", "exit 3 on the first attempt of these commands")
		hang      = flag.String("hang", "", "hang for these commands")
		hangOnce  = flag.String("hangonce", "", "hang on the first attempt of these commands")
		hangChild = flag.Bool("hangchild", false, "when hanging, start a child that hangs too and write its pid to -pidfile")
		leave     = flag.String("leavechild", "", "for these commands, start a child that hangs, write both pids to -pidfile and answer")
		pidFile   = flag.String("pidfile", "", "file for the pid of the hanging process (and its child)")
		big       = flag.String("big", "", "print -bigsize bytes for these commands")
		bigSize   = flag.Int("bigsize", 8<<20, "bytes printed by -big")
		binary    = flag.String("binary", "", "print binary data for these commands")
		badShared = flag.String("badshared", "", "print a shared block that is not JSON for these commands")
		sleep     = flag.Duration("sleep", 0, "sleep this long (used by the hanging child)")
	)
	flag.Parse()
	if *sleep > 0 {
		time.Sleep(*sleep)
		return
	}
	prompt, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "read prompt:", err)
		os.Exit(2)
	}
	cmd, step, attempt := os.Getenv("CTXLS_COMMAND"), os.Getenv("CTXLS_STEP"), os.Getenv("CTXLS_ATTEMPT")
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s %s %s\n", cmd, step, attempt, os.Getenv("CTXLS_SESSION_ID"))
			f.Close()
		}
	}
	if *dump != "" {
		os.WriteFile(filepath.Join(*dump, cmd+"-"+attempt+".txt"), prompt, 0o644)
	}
	first := attempt == "1"
	switch {
	case in(*fail, cmd) || in(*failOnce, cmd) && first:
		fmt.Println("partial answer before the failure")
		fmt.Fprintf(os.Stderr, "noise line\nagent failure in %s: the model refused\n", cmd)
		os.Exit(3)
	case in(*hang, cmd) || in(*hangOnce, cmd) && first:
		pids := strconv.Itoa(os.Getpid())
		if *hangChild {
			c := exec.Command(os.Args[0], "-sleep", "1h")
			if err := c.Start(); err == nil {
				pids += " " + strconv.Itoa(c.Process.Pid)
			}
		}
		if *pidFile != "" {
			os.WriteFile(*pidFile+".tmp", []byte(pids), 0o644)
			os.Rename(*pidFile+".tmp", *pidFile)
		}
		fmt.Println("thinking...")
		time.Sleep(time.Hour)
	case in(*leave, cmd):
		c := exec.Command(os.Args[0], "-sleep", "1h")
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start child:", err)
			os.Exit(2)
		}
		pids := strconv.Itoa(os.Getpid()) + " " + strconv.Itoa(c.Process.Pid)
		os.WriteFile(*pidFile+".tmp", []byte(pids), 0o644)
		os.Rename(*pidFile+".tmp", *pidFile)
		fmt.Printf("result of %s, a child left behind\n", cmd)
	case in(*big, cmd):
		line := strings.Repeat("x", 1023) + "\n"
		for n := 0; n < *bigSize; n += len(line) {
			io.WriteString(os.Stdout, line)
		}
		return
	case in(*binary, cmd):
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(i * 7)
		}
		os.Stdout.Write(b)
		return
	case in(*badShared, cmd):
		fmt.Printf("result of %s\n```shared\n{not json: [1, 2\n```\n", cmd)
		return
	}
	sum := sha256.Sum256(prompt)
	fmt.Printf("result of %s (step %s, attempt %s)\n\n```shared\n{\"%s\": {\"step\": %s, \"promptSHA\": \"%x\"}}\n```\n",
		cmd, step, attempt, cmd, step, sum[:4])
}

func in(list, cmd string) bool {
	for _, c := range strings.Split(list, ",") {
		if c != "" && c == cmd {
			return true
		}
	}
	return false
}
