package pubsub_test

import "github.com/jsonrpc-go/jsonrpc/internal/peertest"

// wait bounds every wait of the tests.
const wait = peertest.Wait

// dial returns a client over a pipe to a stream.Server.
var dial = peertest.DialPipe
