//go:build unix

package main

import (
	"context"
	"os/exec"
	"syscall"
	"time"
)

// shellCommand is `sh -c text` in a process group of its own, which ctx's
// end kills whole: a pipeline's curl as well as the shell.
func shellCommand(ctx context.Context, text string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "sh", "-c", text)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	return cmd
}
