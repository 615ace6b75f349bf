package jsonrpc_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// TestSpecTranscripts replays the golden transcripts of testdata/spec (the
// examples of section 7 of the specification; see package testutil)
// against demo.NewServer.
func TestSpecTranscripts(t *testing.T) {
	t.Parallel()
	for _, file := range testutil.TranscriptFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := demo.NewServer()
			for _, ex := range testutil.ReadTranscript(t, file) {
				got := srv.Process(context.Background(), nil, []byte(ex.Req))
				testutil.CheckAnswer(t, fmt.Sprintf("%s:%d", filepath.Base(file), ex.Line), ex.Req, got, ex.Want)
			}
		})
	}
}
