//go:build race

package replicas

// raceEnabled: the race detector slows every process the test starts
// tenfold, so TestFanout publishes fewer events by default.
const raceEnabled = true
