package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// childCPU is the CPU time, user and system, that process pid has used,
// from /proc/PID/stat (in clock ticks of 10 ms, USER_HZ on Linux); 0 when
// it cannot be read.
func childCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime, the 14th and 15th fields of a
// /proc/PID/stat line; the command, the 2nd, is in parentheses and may
// hold spaces.
func parseStatCPU(stat string) time.Duration {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(stat[i+1:]) // from the 3rd field on
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// childSys counts the read and write system calls process pid has made
// (syscr and syscw of /proc/PID/io) and the context switches of all its
// threads (voluntary and not, from /proc/PID/task/*/status); -1 each when
// they cannot be read.
func childSys(pid int) (syscalls, switches int64) {
	syscalls, switches = -1, -1
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid)); err == nil {
		syscalls = sumFields(string(b), "syscr:", "syscw:")
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return syscalls, switches
	}
	switches = 0
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err == nil {
			switches += sumFields(string(b), "voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")
		}
	}
	return syscalls, switches
}

// sumFields adds the numbers after each of the names that begin a line of
// s ("name: 12"); a name missing or not followed by a number adds nothing.
func sumFields(s string, names ...string) int64 {
	var n int64
	for line := range strings.Lines(s) {
		for _, name := range names {
			if v, ok := strings.CutPrefix(line, name); ok {
				if x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
					n += x
				}
			}
		}
	}
	return n
}
