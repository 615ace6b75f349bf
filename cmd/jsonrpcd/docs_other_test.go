//go:build !unix

package main

import (
	"context"
	"os/exec"
	"time"
)

// shellCommand is `sh -c text`, which ctx's end kills.
func shellCommand(ctx context.Context, text string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "sh", "-c", text)
	cmd.WaitDelay = time.Second
	return cmd
}
