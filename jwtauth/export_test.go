package jwtauth

import "time"

// SetNow makes v read the time from now.
func SetNow(v *Verifier, now func() time.Time) { v.now = now }

// Fetches returns how many times v has fetched its key set.
func Fetches(v *Verifier) int64 { return v.fetches.Load() }
