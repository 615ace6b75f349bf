package streamhttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/enumerator"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// The defaults of the session bounds of a Handler.
const (
	DefaultMaxSessions    = 4096
	DefaultSessionIdle    = 10 * time.Minute
	DefaultNewSessionIdle = 30 * time.Second
	DefaultStreamIdle     = 5 * time.Minute
	DefaultStreamLifetime = 30 * time.Minute
	DefaultMaxStreams     = 32
	DefaultRetry          = time.Second
)

// A session is what MCP 2025-11-25 calls one: the requests of a client
// from the answer to its initialize on, which carry its Mcp-Session-Id.
// Its messages run on one peer.Conn, for its whole life, whose transport
// is the session itself: Read returns what the client POSTs, in the order
// it came; Write sends each message the Conn writes on the stream it
// belongs to: an answer on its request's, a method's notification or call
// on the stream of that method's request, anything else on the GET
// stream. The client's answers to the server's calls come in POSTs of
// their own, and reach the call waiting for them through the Conn.
type session struct {
	h      *Handler
	id     string
	conn   *peer.Conn
	ctx    context.Context
	cancel context.CancelFunc
	in     chan []byte        // the messages POSTed, for Read
	done   chan struct{}      // closed when the session ends
	client string             // the client that began it
	owner  *jsonrpc.Principal // who began it, whose its calls are; nil: anonymous, or revived
	prefix string             // of its streams' ids: "" when it began here, random when revived
	stored bool               // saved in the handler's SessionStore

	mu       sync.Mutex         // protects the fields below
	calls    map[string]*stream // the streams of the requests running, by id as sent
	streams  map[string]*stream // every stream kept, by its id: running or resumable
	order    []*stream          // streams, oldest first
	get      *stream            // the GET stream, if one was opened
	next     uint64             // the id of the next stream
	active   int                // HTTP requests of the session being served
	uses     int                // HTTP requests of the session taken, up to 2
	idle     *time.Timer        // ends the session once it has been idle for SessionIdle
	finished bool               // end has run
	initCall string             // the id (as sent) of the request that began it, until answered
	version  string             // the MCP protocol version its initialize answer negotiated
	saved    time.Time          // when it was last saved in the SessionStore
	dropped  bool               // it ended and was deleted from the SessionStore

	// current (atomic, not under mu) is the Principal of its calls:
	// owner's, or that of the latest request of owner's subject, whose
	// token may hold more scopes (MCP's step-up authorization).
	current atomic.Pointer[jsonrpc.Principal]
}

type sessionKey struct{}

// newSessionID returns a new session id: 128 random bits in hex, after
// replica and a '.' when replica is not "", visible ASCII as MCP asks.
func newSessionID(replica string) string {
	var b [16]byte
	rand.Read(b[:])
	if replica == "" {
		return hex.EncodeToString(b[:])
	}
	return replica + "." + hex.EncodeToString(b[:])
}

// validReplica reports whether r may be a Handler's Replica.
func validReplica(r string) bool {
	if r == "" || len(r) > 64 {
		return false
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validSessionID reports whether id may be a session id: 1 to 128
// visible ASCII characters.
func validSessionID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// Errors of the session table.
var (
	errTooManySessions = errors.New("streamhttp: too many sessions")
	errClientSessions  = errors.New("streamhttp: too many sessions of this client")
	errTooManyStreams  = errors.New("streamhttp: too many streams in this session")
	errIDInUse         = errors.New("streamhttp: a request with this id is running in this session")
	errSessionEnded    = errors.New("streamhttp: session ended")
	errBadReplica      = errors.New("streamhttp: Handler.Replica is not 1 to 64 letters, digits, '-' or '_'")
)

// newSession makes a session and starts its Conn, unless the handler has
// MaxSessions already or is closing. With revive, it is the session of
// that state, from the SessionStore; it returns the session of that id
// instead when the handler holds one already.
func (h *Handler) newSession(lim transport.Limits, client string, owner *jsonrpc.Principal, revive *SessionState) (*session, error) {
	if revive == nil && h.Replica != "" && !validReplica(h.Replica) {
		return nil, errBadReplica
	}
	h.smu.Lock()
	defer h.smu.Unlock()
	if h.closing.Load() || h.host.Closing() {
		return nil, transport.ErrHostClosed
	}
	if revive != nil {
		if s := h.sessions[revive.ID]; s != nil {
			return s, nil
		}
	}
	if revive != nil {
		client = revive.Client
	}
	if len(h.sessions) >= h.maxSessions() {
		return nil, errTooManySessions
	}
	if client != "" && h.clients[client] >= h.maxSessionsPerClient() {
		return nil, errClientSessions
	}
	if h.sessions == nil {
		h.sessions = map[string]*session{}
		h.clients = map[string]int{}
	}
	s := &session{h: h, in: make(chan []byte), done: make(chan struct{}), calls: map[string]*stream{}, streams: map[string]*stream{}}
	if revive != nil {
		// The streams of its earlier life may still be kept in the
		// EventStore: the new ones' ids must differ.
		var b [4]byte
		rand.Read(b[:])
		s.id, s.client, s.version, s.stored = revive.ID, revive.Client, revive.Version, true
		s.prefix = hex.EncodeToString(b[:]) + "."
		s.uses = 1 // used before: not a new session
	} else {
		s.id, s.client = newSessionID(h.Replica), client
	}
	// The session's calls are of the client, and the Principal, that
	// opened it.
	s.owner = owner
	ctx := transport.WithClient(context.WithValue(context.Background(), sessionKey{}, s), client)
	if owner != nil {
		s.current.Store(owner)
		ctx = &principalCtx{ctx, s}
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	var log *slog.Logger
	if h.Logger != nil {
		log = h.logger().With(slog.String("session", s.id))
	}
	srv := h.Server
	if srv == nil {
		srv = noMethods()
	}
	// Every goroutine that sends writes at once (Traits.Exchanges): a
	// message for one stream waits for no other's.
	carrier := transport.Carrier{Conn: (*sessionConn)(s), Traits: transport.Traits{Exchanges: true}}
	s.conn = peer.New(enumerator.Enable(s.ctx), carrier, peer.Options{Server: srv, Protocol: h.protocol(), Limits: lim, Logger: log})
	h.sessions[s.id] = s
	if client != "" {
		h.clients[client]++
	}
	go s.conn.Run(func(error) {})
	return s, nil
}

// lookup returns the session id, if it exists: one the handler holds, or
// one its SessionStore holds, revived. It returns an error that matches
// ErrStoreUnavailable when the store failed to say.
func (h *Handler) lookup(id string, lim transport.Limits, p *jsonrpc.Principal) (*session, error) {
	h.smu.Lock()
	s := h.sessions[id]
	h.smu.Unlock()
	if s != nil && !s.ownedBy(p) {
		return nil, nil
	}
	if s != nil && s.owner != nil {
		s.current.Store(p) // its calls are this request's Principal's from now on
	}
	if s != nil || h.SessionStore == nil {
		return s, nil
	}
	st, ok, err := h.load(id)
	if err != nil {
		h.logf(context.Background(), "session store", err)
		if !errors.Is(err, ErrStoreUnavailable) {
			err = fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
		}
		return nil, err
	}
	if !ok || st.ID != id {
		return nil, nil
	}
	// Another subject's requests find no session here either; the
	// subject's own revive it, theirs.
	var owner *jsonrpc.Principal
	if st.Subject != "" {
		if p == nil || p.Subject != st.Subject {
			return nil, nil
		}
		owner = p
	}
	s, err = h.newSession(lim, st.Client, owner, &st)
	if err != nil {
		h.logf(context.Background(), "session store: reviving a session", err)
		return nil, nil
	}
	if !s.ownedBy(p) {
		return nil, nil // revived meanwhile by another's request: not p's
	}
	return s, nil
}

// stateLocked returns what the SessionStore keeps of s; s.mu is held.
func (s *session) stateLocked() SessionState {
	st := SessionState{ID: s.id, Version: s.version, Client: s.client}
	if s.owner != nil {
		st.Subject = s.owner.Subject
	}
	return st
}

// ownedBy reports whether a request of p may use s: s began anonymous,
// or p has the subject of the Principal that began it. Another's request
// finds no session (404), as if the id named none.
func (s *session) ownedBy(p *jsonrpc.Principal) bool {
	return s.owner == nil || p != nil && p.Subject == s.owner.Subject
}

// principalCtx is the context of a session's calls: their Principal is
// the session's current one.
type principalCtx struct {
	context.Context
	s *session
}

func (c *principalCtx) Value(key any) any {
	if _, ok := key.(keys.Principal); ok {
		return c.s.current.Load()
	}
	return c.Context.Value(key)
}

// answered records the answer to the request that began s, when msg is
// it (a response with id): the version it negotiated, and s saved in the
// SessionStore.
func (s *session) answered(id []byte, msg []byte) {
	s.mu.Lock()
	if s.initCall == "" || s.initCall != string(id) {
		s.mu.Unlock()
		return
	}
	s.initCall = ""
	result := wire.Member(msg, "result")
	if result == nil {
		s.mu.Unlock()
		return // an error: the session ends
	}
	if v, ok := wire.Unquote(wire.Member(result, "protocolVersion"), false); ok {
		s.version = v
	}
	state := s.stateLocked()
	store := s.h.SessionStore
	if store != nil {
		s.stored, s.saved = true, time.Now()
	}
	s.mu.Unlock()
	if store != nil {
		// Before the answer, so that another replica finds the session
		// by the time the client has its id: within the guard's timeout.
		s.h.save(state, true)
	}
}

// Sessions returns the number of sessions.
func (h *Handler) Sessions() int {
	h.smu.Lock()
	defer h.smu.Unlock()
	return len(h.sessions)
}

// enter counts an HTTP request of the session being served, and reports
// false when the session has ended.
// A session saved in the SessionStore is saved again when it was last
// saved more than the handler's resave time ago, so that the store's TTL
// counts from its last use.
func (s *session) enter() bool {
	s.mu.Lock()
	if s.finished {
		s.mu.Unlock()
		return false
	}
	s.active++
	s.uses = min(s.uses+1, 2)
	if s.idle != nil {
		s.idle.Stop()
	}
	var state SessionState
	resave := s.stored && time.Since(s.saved) >= s.h.resaveEvery()
	if resave {
		s.saved = time.Now()
		state = s.stateLocked()
	}
	s.mu.Unlock()
	if resave {
		resaved := func() {
			s.h.save(state, true)
			// A session that ended meanwhile (a DELETE) may have been
			// deleted before this save: delete it again.
			s.mu.Lock()
			dropped := s.dropped
			s.mu.Unlock()
			if dropped {
				s.h.delete(s.id)
			}
		}
		if s.h.guardedSessions() {
			go resaved() // the request needs nothing of it
		} else {
			resaved()
		}
	}
	return true
}

// leave ends what enter began; the session's idle time starts when no
// request is left.
func (s *session) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.active == 0 && !s.finished {
		s.armLocked()
	}
}

// armLocked starts the idle timer: SessionIdle, or NewSessionIdle while
// no request has used the session since the one that began it; s.mu is
// held.
func (s *session) armLocked() {
	d := s.h.sessionIdle()
	if s.uses < 2 {
		d = s.h.newSessionIdle()
	}
	if d <= 0 {
		return
	}
	if s.idle == nil {
		s.idle = time.AfterFunc(d, s.idled)
		return
	}
	s.idle.Reset(d)
}

// idled ends the session, unless a request came meanwhile or a call still
// runs (a client gone from its stream may come back for it).
func (s *session) idled() {
	s.mu.Lock()
	if s.finished || s.active > 0 {
		s.mu.Unlock()
		return
	}
	if s.conn.Busy() {
		s.armLocked()
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.end(true)
}

// open makes the stream of a request with id (as sent), refusing an id in
// use and a stream past MaxStreams (the oldest streams kept only for
// resumption make room first).
func (s *session) open(id []byte) (*stream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return nil, errSessionEnded
	}
	key := string(id)
	if _, ok := s.calls[key]; ok {
		return nil, errIDInUse
	}
	if !s.roomLocked() {
		return nil, errTooManyStreams
	}
	st := s.newStreamLocked(key)
	s.calls[key] = st
	return st, nil
}

// openGet makes the GET stream, replacing one no request carries.
func (s *session) openGet() (*stream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return nil, errSessionEnded
	}
	if old := s.get; old != nil {
		s.dropLocked(old)
		s.get = nil
	}
	if !s.roomLocked() {
		return nil, errTooManyStreams
	}
	st := s.newStreamLocked("")
	s.get = st
	return st, nil
}

// roomLocked makes room for a stream, dropping the oldest that only wait
// to be resumed, and reports whether there is; s.mu is held.
func (s *session) roomLocked() bool {
	max := s.h.maxStreams()
	for i := 0; len(s.streams) >= max && i < len(s.order); {
		st := s.order[i]
		if s.calls[st.call] == st || st == s.get {
			i++ // running: it stays
			continue
		}
		s.dropLocked(st)
	}
	return len(s.streams) < max
}

func (s *session) newStreamLocked(call string) *stream {
	s.next++
	st := &stream{s: s, id: s.prefix + strconv.FormatUint(s.next, 10), call: call}
	s.streams[st.id] = st
	s.order = append(s.order, st)
	return st
}

// dropLocked forgets st and its events; s.mu is held.
func (s *session) dropLocked(st *stream) {
	if st.orphan {
		s.h.forget(s.id, st.id) // replayed: delivered
		return
	}
	if s.streams[st.id] != st {
		return
	}
	delete(s.streams, st.id)
	for i, o := range s.order {
		if o == st {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.h.forget(s.id, st.id)
}

// ended records that st has ended (its answer written): delivered, it is
// forgotten; otherwise it is kept for the client to resume.
func (s *session) ended(st *stream, delivered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.call != "" && s.calls[st.call] == st {
		delete(s.calls, st.call)
	}
	if delivered {
		s.dropLocked(st)
	}
}

// streamOf returns the stream an event id names, and the event's number.
// With a SessionStore, a stream the session does not hold (carried by
// another replica, or before a restart) is taken as ended, to be replayed
// from the EventStore.
func (s *session) streamOf(eventID string) (*stream, uint64) {
	i := strings.LastIndexByte(eventID, '-')
	if i <= 0 {
		return nil, 0
	}
	seq, err := strconv.ParseUint(eventID[i+1:], 10, 64)
	if err != nil || seq == 0 {
		return nil, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := eventID[:i]
	st := s.streams[id]
	if st == nil && s.h.SessionStore != nil && !s.finished && validSessionID(id) {
		// Its call ran elsewhere, and runs no more here: what the
		// EventStore kept of it is all there is. The stream is not
		// registered in the session: a Last-Event-ID that finds nothing
		// kept leaves nothing behind, and one that does has its events
		// forgotten once they are replayed (dropLocked).
		st = &stream{s: s, id: id, primed: true, done: true, seq: seq, orphan: true}
	}
	return st, seq
}

// callStream returns the stream of the running request with id (as sent).
func (s *session) callStream(id []byte) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[string(id)]
}

// getStream returns the GET stream, or nil.
func (s *session) getStream() *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.get
}

// deliver hands msg, a message POSTed in the session, to its Conn, and
// reports whether it took it before ctx ended or the session did.
func (s *session) deliver(ctx context.Context, msg []byte) bool {
	select {
	case s.in <- msg:
		return true
	case <-s.done:
	case <-ctx.Done():
	}
	return false
}

// end ends the session: it is forgotten, its Conn reads no more (and its
// calls are cancelled when cancel is set), the requests that carry its
// streams return, and its events are dropped, and it is deleted from the
// SessionStore.
func (s *session) end(cancel bool) { s.endSession(cancel, false) }

// endSession is end; with keep, a session saved in the SessionStore stays
// there with its events, for another replica (Shutdown and Close).
func (s *session) endSession(cancel, keep bool) {
	h := s.h
	h.smu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
		if s.client != "" {
			if n := h.clients[s.client] - 1; n > 0 {
				h.clients[s.client] = n
			} else {
				delete(h.clients, s.client)
			}
		}
	}
	h.smu.Unlock()
	s.mu.Lock()
	if s.finished {
		s.mu.Unlock()
		if cancel {
			s.cancel()
		}
		return
	}
	s.finished, s.dropped = true, !keep
	if s.idle != nil {
		s.idle.Stop()
	}
	streams := s.order
	s.order, s.streams, s.calls, s.get = nil, map[string]*stream{}, map[string]*stream{}, nil
	s.mu.Unlock()
	close(s.done)
	if cancel {
		s.cancel()
	}
	for _, st := range streams {
		st.end()
	}
	if keep && s.stored {
		return
	}
	h.forget(s.id, "")
	if s.stored {
		h.delete(s.id)
	}
}

// endAll ends every session, leaving those saved in the SessionStore
// there.
func (h *Handler) endAll(cancel bool) {
	h.smu.Lock()
	all := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		all = append(all, s)
	}
	h.smu.Unlock()
	for _, s := range all {
		s.endSession(cancel, true)
	}
}

// stopAll makes every session's Conn run no more of its client's
// messages (peer.Conn.Shutdown).
func (h *Handler) stopAll() {
	h.smu.Lock()
	defer h.smu.Unlock()
	for _, s := range h.sessions {
		s.conn.Shutdown()
	}
}

// sessionConn is a session as the transport of its Conn.
type sessionConn session

// Read returns the next message POSTed in the session, and io.EOF once the
// session has ended.
func (t *sessionConn) Read() ([]byte, error) {
	select {
	case m := <-t.in:
		return m, nil
	case <-t.done:
		return nil, io.EOF
	}
}

// Write sends msg on the stream it belongs to (see session). A message
// with nowhere to go (a notification outside any call with no GET stream
// opened, an answer whose stream has ended) is dropped, as MCP allows. It
// never fails: a stream whose client is gone keeps its events for the
// client to resume, and the session goes on.
func (t *sessionConn) Write(ctx context.Context, msg []byte) error {
	s := (*session)(t)
	var r wire.Request
	kind, err := (wire.Scanner{}).Classify(msg, &r)
	if err != nil {
		return nil
	}
	if kind == wire.MsgResponse {
		s.answered(r.ID, msg)
		if st := s.callStream(r.ID); st != nil {
			st.send(msg, true) // a stream's client gone is no failure of the session
		}
		return nil
	}
	var st *stream
	if c := jsonrpc.CallOf(ctx); c != nil && !c.IsNotification() {
		st = s.callStream(c.ID())
	}
	if st == nil {
		st = s.getStream()
	}
	if st == nil {
		return nil
	}
	st.send(msg, false)
	return nil
}

// Flush does nothing: each event is flushed as it is written.
func (t *sessionConn) Flush() error { return nil }

// Close ends the session's reading.
func (t *sessionConn) Close() error { return nil }
