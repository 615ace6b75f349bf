package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// frame is msg with LSP's Content-Length header.
func frame(msg string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg)
}

// readFrames reads LSP frames from r until it ends.
func readFrames(r io.Reader) ([]string, error) {
	br := bufio.NewReader(r)
	var msgs []string
	for {
		n := -1
		for {
			line, err := br.ReadString('\n')
			if err == io.EOF && line == "" && n < 0 {
				return msgs, nil
			}
			if err != nil {
				return msgs, err
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				if n, err = strconv.Atoi(v); err != nil {
					return msgs, err
				}
			}
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return msgs, err
		}
		msgs = append(msgs, string(b))
	}
}

// An editor that pipelines initialize, shutdown and exit, as one write,
// gets both answers before the process exits, with status 0. Before, the
// process exited before it wrote them, and the editor got none.
func TestPipelinedExit(t *testing.T) {
	bin := build(t)
	for range 5 {
		cmd := exec.Command(bin)
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, frame(`{"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{}},"id":1}`)+
			frame(`{"jsonrpc":"2.0","method":"shutdown","id":2}`)+
			frame(`{"jsonrpc":"2.0","method":"exit"}`))
		got := make(chan []string, 1)
		go func() {
			msgs, err := readFrames(stdout)
			if err != nil {
				t.Errorf("reading the answers: %v", err)
			}
			got <- msgs
		}()
		var msgs []string
		select {
		case msgs = <-got:
		case <-time.After(10 * time.Second): // a failure bound
			cmd.Process.Kill()
			t.Fatal("the server did not end its output within 10s of exit")
		}
		err = cmd.Wait()
		stdin.Close()
		var ids []string
		for _, m := range msgs {
			var a struct {
				ID    json.RawMessage
				Error any
			}
			if json.Unmarshal([]byte(m), &a) != nil || a.Error != nil {
				t.Errorf("an answer %s", m)
			}
			ids = append(ids, string(a.ID))
		}
		if strings.Join(ids, ",") != "1,2" {
			t.Fatalf("answers %q, want those of initialize and shutdown (ids 1, 2)", msgs)
		}
		if err != nil {
			t.Fatalf("exit after shutdown: %v, want status 0", err)
		}
	}
}

// Hovering costs memory of the size of the word, not of the document:
// before, the whole document was split into lines and the line into a
// slice of 32 bytes a rune, and a hover on a 4 MiB document peaked at
// 583 MiB.
func TestWordAtMemory(t *testing.T) {
	// One long line and many short ones, 4 MiB each.
	long := strings.Repeat("lorem ipsum dolor ", 4<<20/18)
	short := strings.Repeat("lorem ipsum\n", 4<<20/12)
	for _, tc := range []struct {
		name       string
		text       string
		line, char int
		word       string
	}{
		{"one long line, at its end", long, 0, len(long) - 3, "dolor"},
		{"many lines, the last", short, strings.Count(short, "\n") - 1, 8, "ipsum"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		word, _, _, ok := wordAt(tc.text, tc.line, tc.char)
		runtime.ReadMemStats(&after)
		if !ok || word != tc.word {
			t.Errorf("%s: %q, %v; want %q", tc.name, word, ok, tc.word)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
			t.Errorf("%s: a hover allocated %d bytes for a document of %d", tc.name, n, len(tc.text))
		}
	}
}

// The server as an editor drives it: opening a document of nearly 4 MiB
// (the message limit) and hovering on it keeps the process's peak memory
// within a few times the document.
func TestHoverLargeDocumentMemory(t *testing.T) {
	testutil.SkipOnWasm(t, "starts the built command")
	if runtime.GOOS != "linux" {
		t.Skip("reads the peak memory from /proc")
	}
	bin := build(t)
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	text := strings.Repeat("lorem ipsum dolor ", (4<<20-1024)/18)
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": "file:///big.txt", "version": 1, "languageId": "plaintext", "text": text}}})
	go func() {
		io.WriteString(stdin, frame(`{"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{}},"id":1}`)+frame(string(open)))
		for i := range 3 {
			io.WriteString(stdin, frame(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/hover","params":{"textDocument":{"uri":"file:///big.txt"},"position":{"line":0,"character":%d}},"id":%d}`, (len(text)/18-1-i)*18+1, 10+i))) // the o of a lorem
		}
	}()
	br := bufio.NewReader(stdout)
	for want := range 4 { // initialize's answer and three hovers'
		msg, err := readFrame(br)
		if err != nil {
			t.Fatalf("answer %d: %v", want, err)
		}
		if want > 0 && !strings.Contains(msg, `"value":"`) {
			t.Fatalf("a hover answered %.200s", msg)
		}
	}
	peak, err := peakRSS(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS %d MiB for a document of %d MiB", peak>>20, len(text)>>20)
	if limit := int64(8 * len(text)); peak > limit {
		t.Errorf("peak RSS %d MiB, over %d MiB (8× the document)", peak>>20, limit>>20)
	}
}

// readFrame reads one LSP frame from br.
func readFrame(br *bufio.Reader) (string, error) {
	n := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	if n < 0 {
		return "", errors.New("a frame without Content-Length")
	}
	b := make([]byte, n)
	_, err := io.ReadFull(br, b)
	return string(b), err
}

// peakRSS reads VmHWM, the peak resident memory, of the process pid.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM")
}
