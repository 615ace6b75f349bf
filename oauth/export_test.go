package oauth

import "time"

// SetNow makes v read the time from now.
func SetNow(v *Introspection, now func() time.Time) { v.now = now }

// Cached returns the number of verdicts v keeps.
func Cached(v *Introspection) int { return v.cache.Len() }
