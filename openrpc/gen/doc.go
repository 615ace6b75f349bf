// Package gen writes Go code from an OpenRPC document: the types of its
// schemas, the errors it declares, a typed client and a server interface.
// Command openrpc-gen runs it from the command line and go:generate.
package gen
