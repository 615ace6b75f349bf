// Package framing splits a byte stream (a TCP or Unix connection, a pipe,
// standard input and output) into JSON-RPC messages, and frames messages
// onto one. Both ends of a stream use it: the host of package stream (its
// Server's Framing) and the channels of package client (Stream, Dial,
// Command); both ends of a connection must use the same framing.
//
// # The framings
//
//   - Line: one message per line, the message and "\n" (newline-delimited
//     JSON). The Reader also takes "\r\n" and skips blank lines. Compact
//     JSON never holds a newline; a message that does breaks the stream.
//   - Header: the framing of the Language Server Protocol,
//     "Content-Length: N\r\n\r\n" and N bytes. The Reader ignores other
//     header fields (Content-Type), takes "\n" for "\r\n", and caps the
//     header block at MaxHeaderBlock bytes.
//   - Raw: JSON values back to back, white space between them allowed; the
//     Writer ends each with "\n". The Reader finds a value's end by its
//     strings, escapes and brackets, without validating it.
//
// A Framing makes a Reader of an io.Reader and a Writer of an io.Writer:
//
//	w := framing.Header.NewWriter(conn)
//	w.Write(request) // buffered
//	w.Flush()        // written
//
//	r := framing.Header.NewReader(conn, 0) // 0: DefaultMaxMessage
//	msg, err := r.Read()                   // valid until the next Read
//
// A Framing holds no state; one value serves every connection. Readers and
// Writers are not safe for concurrent use.
//
// # Limits
//
// NewReader's max bounds one message (DefaultMaxMessage, 4 MiB, when it is
// zero or less). A message over it is never buffered whole: Read returns a
// *TooLargeError, with the limit, the length Header declared (-1 for the
// others), and the message's id when the bytes read of it hold one, so
// that a server can answer it. When Recoverable is true (Line and Header),
// the message was skipped to its end and the next Read goes on with the
// next message; Raw cannot find the end of a value it does not keep, so
// its TooLargeError ends the stream. Input that breaks a framing's rules
// (a Header block without Content-Length, or over MaxHeaderBlock) gives an
// error wrapping ErrMalformed, after which the Reader is unusable. The
// input ending inside a message gives io.ErrUnexpectedEOF, and between
// messages io.EOF.
//
// # Buffers
//
// A Reader's Buffered is the bytes already read from the underlying reader
// and not yet returned by Read. While it is above zero, the next Read may
// be served from them; when it is zero, the next Read reads the underlying
// reader and may block. A writer that gathers answers to send them in one
// write (as the stream Server and the client's channels do) flushes when
// Buffered is zero, so that it never waits for the peer while holding an
// answer the peer waits for. A Writer's Buffered is the bytes waiting for
// Flush.
//
// A Reader holds a 4 KiB buffer while its connection is idle and a 32 KiB
// one, from a pool, while it is busy (a larger one while it reads a larger
// message, given back at the next); a Writer holds one only between a
// Write and the Flush that empties it. Thousands of idle connections hold
// little memory.
package framing
