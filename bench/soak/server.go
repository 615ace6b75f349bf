package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// addrs are where the server under test listens.
type addrs struct {
	http     string // host:port of HTTP; WebSocket is at /ws on it
	fasthttp string // host:port of HTTP served by fasthttprpc
	tcp      string // host:port of newline-delimited TCP
	metrics  string // the URL of its Prometheus metrics
}

// server is the jsonrpcd process under test.
type server struct {
	cmd  *exec.Cmd
	addr addrs
	out  *lineLog // what it printed
}

// buildServer builds cmd/jsonrpcd into dir and returns the binary's path.
func buildServer(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "jsonrpcd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/jsonrpc-go/jsonrpc/cmd/jsonrpcd")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building jsonrpcd: %w", err)
	}
	return bin, nil
}

// serverFlags returns the names of the flags that bin takes, as its -h
// lists them: a jsonrpcd of an older commit may lack some (-fasthttp,
// -protocol), and the soak leaves out what needs them.
func serverFlags(bin string) (map[string]bool, error) {
	var out strings.Builder
	cmd := exec.Command(bin, "-h")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil && out.Len() == 0 {
		return nil, fmt.Errorf("%s -h: %w", bin, err)
	}
	flags := map[string]bool{}
	for line := range strings.Lines(out.String()) {
		if name, ok := strings.CutPrefix(line, "  -"); ok {
			if f := strings.Fields(name); len(f) > 0 {
				flags[f[0]] = true
			}
		}
	}
	if !flags["tcp"] || !flags["metrics"] {
		return nil, fmt.Errorf("%s -h lists no -tcp or no -metrics: not a jsonrpcd the soak can attack", bin)
	}
	return flags, nil
}

// startServer starts bin on loopback ports of its choosing, fasthttp's
// too when withFastHTTP, with args added, and waits until it has said
// where it listens.
func startServer(bin string, withFastHTTP bool, args ...string) (*server, error) {
	listen := []string{"-http", "127.0.0.1:0", "-tcp", "127.0.0.1:0", "-metrics", "127.0.0.1:0"}
	if withFastHTTP {
		listen = append(listen, "-fasthttp", "127.0.0.1:0")
	}
	cmd := exec.Command(bin, append(listen, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	log := &lineLog{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, out: log}
	found := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		reported := false
		for sc.Scan() {
			line := sc.Text()
			log.Write([]byte(line + "\n"))
			if a, ok := strings.CutPrefix(line, "jsonrpcd: HTTP on http://"); ok {
				s.addr.http = strings.TrimSuffix(a, "/")
			}
			if a, ok := strings.CutPrefix(line, "jsonrpcd: HTTP (fasthttp) on http://"); ok {
				s.addr.fasthttp = strings.TrimSuffix(a, "/")
			}
			if a, ok := strings.CutPrefix(line, "jsonrpcd: TCP (newline-delimited) on "); ok {
				s.addr.tcp = a
			}
			if a, ok := strings.CutPrefix(line, "jsonrpcd: metrics on "); ok {
				s.addr.metrics = a
			}
			if !reported && s.addr.http != "" && (s.addr.fasthttp != "" || !withFastHTTP) && s.addr.tcp != "" && s.addr.metrics != "" {
				reported = true
				found <- nil
			}
		}
		if !reported {
			found <- fmt.Errorf("jsonrpcd exited without saying where it listens:\n%s", log)
		}
	}()
	select {
	case err := <-found:
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, err
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("jsonrpcd said nothing in 30 s:\n%s", log)
	}
	return s, nil
}

// stop ends the server with SIGKILL and waits for it.
func (s *server) stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// rss returns the server's resident set size in bytes, read from
// /proc/PID/status.
func (s *server) rss() (int64, error) {
	return procRSS(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
}

// procRSS reads the VmRSS line of a /proc status file.
func procRSS(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return parseRSS(string(b))
}

// parseRSS finds VmRSS in the text of a /proc status file, in bytes.
func parseRSS(status string) (int64, error) {
	for line := range strings.Lines(status) {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmRSS line %q", line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		return kb << 10, err
	}
	return 0, fmt.Errorf("no VmRSS line")
}

// fds counts the server's open file descriptors.
func (s *server) fds() int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

// goroutines scrapes the server's metrics for go_goroutines.
func (s *server) goroutines(c *http.Client) (int, error) {
	resp, err := c.Get(s.addr.metrics)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	return parseGoroutines(string(b))
}

// parseGoroutines finds go_goroutines in a Prometheus text exposition.
func parseGoroutines(text string) (int, error) {
	for line := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go_goroutines "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return int(f), err
		}
	}
	return 0, fmt.Errorf("no go_goroutines in the metrics")
}

// A sampler records the peaks of the server's RSS, open files and
// goroutines while an attack runs.
type sampler struct {
	mu       sync.Mutex // protects the fields below
	peakRSS  int64
	peakFDs  int
	peakGs   int
	scrapeOK bool // a scrape of the goroutines succeeded
}

// run samples s every interval until ctx ends; the open files and the
// goroutines, which cost a listing of thousands of files and a scrape of
// the server, every fifth time.
func (m *sampler) run(ctx context.Context, s *server, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	c := &http.Client{Timeout: 2 * time.Second}
	defer c.CloseIdleConnections()
	for i := 0; ; i++ {
		rss, err := s.rss()
		fds, gs, gerr := -1, -1, error(nil)
		if i%5 == 0 {
			fds = s.fds()
			gs, gerr = s.goroutines(c)
		}
		m.mu.Lock()
		if err == nil && rss > m.peakRSS {
			m.peakRSS = rss
		}
		if fds > m.peakFDs {
			m.peakFDs = fds
		}
		if gerr == nil && gs >= 0 {
			m.scrapeOK = true
			m.peakGs = max(m.peakGs, gs)
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// peaks returns the peaks; goroutines is -1 when no scrape succeeded.
func (m *sampler) peaks() (rss int64, fds, goroutines int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.scrapeOK {
		return m.peakRSS, m.peakFDs, -1
	}
	return m.peakRSS, m.peakFDs, m.peakGs
}

// lineLog collects a process's output for error messages, and counts all
// of it: what the server logs.
type lineLog struct {
	mu sync.Mutex // protects the fields below
	b  strings.Builder
	n  int64 // bytes written
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 64<<10 {
		l.b.Write(p)
	}
	l.n += int64(len(p))
	return len(p), nil
}

// Len returns the bytes written so far.
func (l *lineLog) Len() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var _ io.Writer = (*lineLog)(nil)
