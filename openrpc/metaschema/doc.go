// Package metaschema holds the tests that check the documents of package
// openrpc against the OpenRPC meta-schema with a JSON Schema validator. It
// is a module of its own so that the library does not require the
// validator.
package metaschema
