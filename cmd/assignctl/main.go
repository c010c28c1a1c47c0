// Command assignctl is the operator CLI of assignd: it talks to a running
// server over the same gRPC API that group leaders use.
//
//	assignctl assignors                     list the runnable assignors
//	assignctl assign -f request.json        send a protojson AssignRequest, print a table
//	assignctl assign -f - -o json           ... read stdin, print protojson
//	assignctl health [--service NAME]       grpc.health.v1 status; exit 1 unless SERVING
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
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand.
type command struct {
	name, args, summary string
	flags               func(fs *flag.FlagSet) // command-specific flags
	run                 func(ctx context.Context, c *conn, in io.Reader, out io.Writer) error
}

func commands() []*command {
	return []*command{assignorsCommand(), assignCommand(), healthCommand()}
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
	var cmd *command
	for _, c := range commands() {
		if c.name == global.Arg(0) {
			cmd = c
		}
	}
	if cmd == nil {
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
	if err := fs.Parse(global.Args()[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(errOut, "assignctl %s: unexpected arguments %q\n", cmd.name, fs.Args())
		return exitUsage
	}
	c, err := cf.dial()
	if err != nil {
		fmt.Fprintf(errOut, "assignctl: %v\n", err)
		return exitUsage
	}
	defer c.close()
	ctx, cancel := context.WithTimeout(ctx, cf.timeout)
	defer cancel()
	if err := cmd.run(ctx, c, in, out); err != nil {
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
		fmt.Fprintf(w, "  %-10s %-32s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprint(w, "\nConnection flags (before or after the command):\n")
	global.SetOutput(w)
	global.PrintDefaults()
	fmt.Fprint(w, "\nExit status: 0 success, 1 the server answered with an error or was unreachable, 2 usage error.\n")
}
