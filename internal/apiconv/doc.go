// Package apiconv converts the engine's plain types ([assign]) into the
// API's messages ([assigndv1]): requests as the client shims build them,
// results as the server answers them, and move reasons both ways.
//
// The API package must not import the engine: a program that only calls
// the service through the base client should not compile the engine. The
// client shims, which need the engine anyway for their local fallback,
// build their requests with it, and the server its responses, so that the
// service and the shims agree on every conversion by construction. Reading
// a request back into the engine's input is the server's one decoder,
// server/request.
package apiconv
