package e2e

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill the child when the test process dies (a test binary killed
// by its timeout must not leave folio or redis-server running).
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
