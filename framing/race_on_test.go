//go:build race

package framing

// raceEnabled reports whether the race detector is on.
const raceEnabled = true
