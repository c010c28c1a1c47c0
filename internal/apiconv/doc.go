// Package apiconv converts between the API's messages ([assigndv1]) and the
// engine's plain types ([assign]), in both directions, in one place.
//
// The API package must not import the engine: a program that only calls
// the service through the base client should not compile the engine. The
// server converts requests and results with this package; the client shims,
// which need the engine anyway for their local fallback, build their
// requests with it too, so that the service and the shims agree on every
// conversion by construction.
//
// Conversions from the API report what they cannot convert as a
// [*FieldError] naming the request field at fault; the server turns it into
// its INVALID_ARGUMENT status.
package apiconv
