package rpcerr

import "github.com/assignd/assignd/internal/clip"

// maxMessage bounds messages composed elsewhere (a Selector's error) that
// may quote what the client sent.
const maxMessage = 1024

// Clip shortens a client-supplied name (a group, member or topic id)
// echoed in a message or a log line.
func Clip(s string) string { return clip.String(s, clip.Short) }

// ClipMessage shortens a message composed elsewhere (a Selector's or the
// policy's error) that may quote what the client sent.
func ClipMessage(s string) string { return clip.String(s, maxMessage) }

// ClipLong shortens a long message meant to be read whole, such as a
// policy's list of problems: four times [ClipMessage]'s bound.
func ClipLong(s string) string { return clip.String(s, 4*maxMessage) }
