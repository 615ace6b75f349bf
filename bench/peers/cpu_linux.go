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
