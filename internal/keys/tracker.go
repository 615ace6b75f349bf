package keys

import "context"

// Tracker is the context key of a transport's Tracker.
type Tracker struct{}

// A CallTracker learns of each call that runs on a goroutine of its own (a
// method registered Blocking): Begin runs on the goroutine that dispatches
// it, before the call starts, with the request's id as sent (nil for a
// notification), and returns the context the method gets and the function
// to call once the method has returned.
type CallTracker interface {
	Begin(ctx context.Context, id []byte) (context.Context, func())
}

// Begin calls the CallTracker of ctx, if any, for a call with id.
func Begin(ctx context.Context, id []byte) (context.Context, func()) {
	if t, ok := ctx.Value(Tracker{}).(CallTracker); ok {
		return t.Begin(ctx, id)
	}
	return ctx, nil
}
