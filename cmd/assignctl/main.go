// Command assignctl is the operator CLI of assignd: it talks to a running
// server over the same gRPC API that group leaders use.
//
//	assignctl assignors                     list the runnable assignors
//	assignctl assign -f request.json        send a protojson AssignRequest, print a table
//	assignctl assign -f - -o json           ... read stdin, print protojson
//	assignctl health [--service NAME]       grpc.health.v1 status; exit 1 unless SERVING
//	assignctl policy check FILE             validate a policy file locally; exit 1 if invalid
//	assignctl policy explain GROUP [PROTO]  which rule, assignor and parameters the
//	                                        server's policy picks for a group
//
// Connection flags (--addr, --timeout, --tls*) go before or after the
// command; run `assignctl help` for all of them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand.
type command struct {
	// name is one word, or two for a command of a group ("policy check").
	name, args, summary string
	// minArgs and maxArgs bound the positional arguments; both 0: none.
	minArgs, maxArgs int
	// local commands work without a server: they get no connection.
	local bool
	flags func(fs *flag.FlagSet) // command-specific flags
	run   func(ctx context.Context, inv *invocation) error
}

// invocation is what a command runs with.
type invocation struct {
	conn *conn // nil for local commands
	args []string
	in   io.Reader
	out  io.Writer
	// errOut is for commands that report several problems themselves;
	// they then return errReported.
	errOut io.Writer
}

// errReported: the command has printed why it failed; exit 1.
var errReported = errors.New("reported")

func commands() []*command {
	return []*command{assignorsCommand(), assignCommand(), healthCommand(), policyCheckCommand(), policyExplainCommand()}
}

// findCommand returns the command args start with, and the rest of args.
// When args name only the group of several commands ("policy"), it
// returns the commands of the group instead.
func findCommand(args []string) (*command, []string, []*command) {
	var group []*command
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && slices.Equal(args[:len(words)], words) {
			return c, args[len(words):], nil
		}
		if len(words) > 1 && words[0] == args[0] {
			group = append(group, c)
		}
	}
	return nil, nil, group
}

// parseInterspersed parses flags wherever they are among the positional
// arguments (`policy explain orders --addr host:7070`), and returns the
// positional ones. Everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// exit statuses
const (
	exitOK    = 0
	exitFail  = 1 // the server answered with an error, or was unreachable
	exitUsage = 2
)

func run(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	cf := newConnFlags()
	global := flag.NewFlagSet("assignctl", flag.ContinueOnError)
	global.SetOutput(errOut)
	cf.register(global)
	global.Usage = func() { usage(errOut, global) }
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if global.NArg() == 0 || global.Arg(0) == "help" {
		usage(out, global)
		if global.NArg() == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, rest, group := findCommand(global.Args())
	if cmd == nil {
		if len(group) > 0 {
			fmt.Fprintf(errOut, "assignctl %s: want a subcommand:\n", global.Arg(0))
			for _, c := range group {
				fmt.Fprintf(errOut, "  assignctl %s %s\n", c.name, c.args)
			}
			return exitUsage
		}
		fmt.Fprintf(errOut, "assignctl: unknown command %q (try assignctl help)\n", global.Arg(0))
		return exitUsage
	}
	fs := flag.NewFlagSet("assignctl "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(errOut)
	cf.register(fs) // connection flags are accepted after the command too
	if cmd.flags != nil {
		cmd.flags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(errOut, "Usage: assignctl %s %s\n  %s\n\nFlags:\n", cmd.name, cmd.args, cmd.summary)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	switch {
	case len(pos) > cmd.maxArgs && cmd.maxArgs == 0:
		fmt.Fprintf(errOut, "assignctl %s: unexpected arguments %q\n", cmd.name, pos)
		return exitUsage
	case len(pos) < cmd.minArgs || len(pos) > cmd.maxArgs:
		fmt.Fprintf(errOut, "Usage: assignctl %s %s\n", cmd.name, cmd.args)
		return exitUsage
	}
	inv := &invocation{args: pos, in: in, out: out, errOut: errOut}
	if !cmd.local {
		c, err := cf.dial()
		if err != nil {
			fmt.Fprintf(errOut, "assignctl: %v\n", err)
			return exitUsage
		}
		defer c.close()
		inv.conn = c
	}
	ctx, cancel := context.WithTimeout(ctx, cf.timeout)
	defer cancel()
	if err := cmd.run(ctx, inv); err != nil {
		if errors.Is(err, errReported) {
			return exitFail
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(errOut, "assignctl %s: %v\n", cmd.name, err)
			return exitUsage
		}
		printError(errOut, cmd.name, err)
		return exitFail
	}
	return exitOK
}

// usageError is a mistake in the command line or its input file.
type usageError struct{ error }

func usage(w io.Writer, global *flag.FlagSet) {
	fmt.Fprint(w, "assignctl talks to a running assignd over its gRPC API.\n\nUsage: assignctl [connection flags] <command> [flags]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-15s %-28s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprint(w, "\nConnection flags (before or after the command):\n")
	global.SetOutput(w)
	global.PrintDefaults()
	fmt.Fprint(w, "\nExit status: 0 success, 1 the server answered with an error or was unreachable, 2 usage error.\n")
}
