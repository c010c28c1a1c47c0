// Command assignctl is the operator CLI of assignd: it talks to a running
// server over the same gRPC API that group leaders use.
//
//	assignctl assignors                      list the runnable assignors
//	assignctl assign -f request.json         send a protojson AssignRequest, print a table
//	assignctl assign -f - -o json            ... read stdin, print protojson
//	assignctl health [--service NAME]        grpc.health.v1 status; exit 1 unless SERVING
//	assignctl policy check FILE              validate a policy file locally; exit 1 if invalid
//	assignctl policy explain GROUP [PROTO]   which rule, assignor and parameters the
//	                                         server's policy picks for a group
//	assignctl groups [--signal S] [--prefix P]   the groups the server remembers, with signals
//	assignctl describe GROUP                 a group's members, last decisions and signals
//	assignctl policy diff CANDIDATE.yaml     what a candidate policy would do to every
//	                                         recorded group; exit 4 past --fail-moved-ratio
//	assignctl simulate GROUP --assignor X    replay a group's recorded inputs under X
//	assignctl migrate-report                 what the switch to KIP-848 does, per group
//	assignctl release-check GROUP [--for 10m] watch a group during a release; exit 4 if it regressed
//	assignctl completion bash|zsh|fish|powershell   shell completion script
//
// Every command takes -o table (the default) or -o json. The connection
// flags (--addr, --timeout, --tls, --tls-ca, --tls-cert, --tls-key,
// --tls-server-name, --max-recv-bytes) go before or after the command, and
// each has an environment variable, ASSIGNCTL_ and the flag's name in upper
// case with _ for -, e.g. ASSIGNCTL_ADDR or ASSIGNCTL_TLS_CA; a flag on the
// command line wins over its variable.
//
// Exit status, so that scripts can tell the cases apart:
//
//	0  success
//	1  the server refused the request, is not serving (health), or the
//	   policy file has problems (policy check)
//	2  usage: an unknown command or flag, a wrong argument, an unreadable
//	   or invalid input file
//	3  no connection to the server, or no answer within --timeout
//	4  a check failed: policy diff found a group the candidate cannot
//	   serve, or one that moves more than --fail-moved-ratio; or
//	   assignctl release-check found the group regressed during the watched
//	   rollout (docs/release-check.md)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses; see the package documentation.
const (
	exitOK          = 0
	exitFail        = 1
	exitUsage       = 2
	exitUnreachable = 3
	exitCheckFailed = 4
)

// errCheckFailed: a command's check failed (exit 4); it has printed why.
var errCheckFailed = fmt.Errorf("check failed: %w", errReported)

// usageError is a mistake in the command line or its input file (exit 2).
type usageError struct{ error }

// errReported: the command has printed why it failed; exit 1.
var errReported = errors.New("reported")

// app is one invocation's state, shared by the commands.
type app struct {
	conn    connFlags
	output  string
	in      io.Reader
	out     io.Writer
	errOut  io.Writer
	started bool // a command's own code ran (its errors are not usage errors)
}

func run(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	a := &app{in: in, out: out, errOut: errOut}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errOut)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err, a.started)
	switch {
	case errors.Is(err, errReported):
	case code == exitUsage:
		fmt.Fprintf(errOut, "%s: %v\nRun '%s --help' for usage.\n", cmd.CommandPath(), err, cmd.CommandPath())
	default:
		printError(errOut, cmd.CommandPath(), err)
	}
	return code
}

// exitCode classifies a command's error. Errors from before the command
// ran (flags, arguments) are usage errors.
func exitCode(err error, started bool) int {
	if errors.Is(err, errCheckFailed) {
		return exitCheckFailed
	}
	var ue usageError
	if errors.As(err, &ue) || !started {
		return exitUsage
	}
	if st, ok := status.FromError(err); ok {
		switch st.Code() {
		case codes.Unavailable, codes.DeadlineExceeded:
			return exitUnreachable
		}
	}
	return exitFail
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "assignctl",
		Short: "assignctl talks to a running assignd over its gRPC API",
		Long: `assignctl talks to a running assignd over its gRPC API.

Connection flags have environment variables: ASSIGNCTL_ADDR, ASSIGNCTL_TIMEOUT,
ASSIGNCTL_TLS, ASSIGNCTL_TLS_CA, ASSIGNCTL_TLS_CERT, ASSIGNCTL_TLS_KEY,
ASSIGNCTL_TLS_SERVER_NAME, ASSIGNCTL_MAX_RECV_BYTES; a flag wins over its
variable.

Exit status: 0 success; 1 the server refused the request, is not serving, or
the policy file has problems; 2 usage error; 3 no connection to the server or
no answer within --timeout; 4 a check failed (policy diff, release-check), or a staged
rollout halted (policy status).`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.conn.applyEnv(cmd.Flags(), os.Getenv); err != nil {
				return usageError{err}
			}
			if a.output != "table" && a.output != "json" {
				return usageError{fmt.Errorf("-o %q: want table or json", a.output)}
			}
			return nil
		},
	}
	root.SetVersionTemplate("assignctl {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	a.conn.register(pf)
	pf.StringVarP(&a.output, "output", "o", "table", "output `format`: table or json")
	root.AddCommand(a.assignorsCommand(), a.assignCommand(), a.healthCommand(), a.policyCommand(), a.groupsCommand(), a.describeCommand(),
		a.simulateCommand(), a.migrateReportCommand(), a.releaseCheckCommand())
	return root
}

// runE wraps a command's code: from here on, errors are the command's.
func (a *app) runE(f func(ctx context.Context, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.started = true
		ctx, cancel := context.WithTimeout(cmd.Context(), a.conn.timeout)
		defer cancel()
		return f(ctx, args)
	}
}

// runConn is runE for a command that talks to the server: f gets the
// connection, closed when it returns.
func (a *app) runConn(f func(ctx context.Context, c *conn, args []string) error) func(*cobra.Command, []string) error {
	return a.runE(func(ctx context.Context, args []string) error {
		c, err := a.dial()
		if err != nil {
			return err
		}
		defer c.close()
		return f(ctx, c, args)
	})
}

// dial connects for a command that talks to the server; a mistake in the
// connection flags is a usage error.
func (a *app) dial() (*conn, error) {
	c, err := a.conn.dial()
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// version is the module version assignctl was built from, with the VCS
// revision when the build recorded one.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " (" + s.Value[:12] + ")"
		}
	}
	return v
}
