// Package testutil holds test helpers shared by the library's tests.
package testutil

import "reflect"

// SameResponse reports whether two decoded JSON responses (values decoded
// into any by encoding/json) are equal. Two top-level arrays, batch
// responses, are equal when they hold the same elements the same number of
// times, in any order, since a server may answer a batch in any order;
// everything else, nested arrays included, is compared with reflect.DeepEqual.
// Numbers compare as decoded: callers that want 19 and 19.0 equal normalize
// them first.
func SameResponse(got, want any) bool {
	g, gok := got.([]any)
	w, wok := want.([]any)
	if !gok || !wok {
		return reflect.DeepEqual(got, want)
	}
	if len(g) != len(w) {
		return false
	}
	used := make([]bool, len(g))
next:
	for _, we := range w {
		for i, ge := range g {
			if !used[i] && reflect.DeepEqual(ge, we) {
				used[i] = true
				continue next
			}
		}
		return false
	}
	return true
}
