// Command folio runs the folio portfolio backend. Everything happens in internal/cli; main only
// connects it to the process: signals, environment, streams and the exit status.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // every IANA zone works on a minimal host

	"github.com/foliohq/folio/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cli.Run(ctx, os.Args[1:], cli.Env{Getenv: os.Getenv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, DotenvPath: ".env"})
	switch {
	case err == nil:
	case errors.Is(err, cli.ErrUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, cli.ErrorLine(err))
		os.Exit(1)
	}
}
