//go:build !linux

package main

import "time"

// childCPU is not measured here: the process workload refuses to run.
func childCPU(pid int) time.Duration { return 0 }

// childSys is not measured here.
func childSys(pid int) (syscalls, switches int64) { return -1, -1 }
