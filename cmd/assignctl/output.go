package main

import (
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// json reports whether -o json was asked for.
func (a *app) json() bool { return a.output == "json" }

// printProtoJSON prints m as indented protojson; emitUnpopulated prints
// fields at their zero value too (for messages whose zero values mean
// something, such as a policy's parameters).
func printProtoJSON(w io.Writer, m proto.Message, emitUnpopulated bool) error {
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  ", EmitUnpopulated: emitUnpopulated}.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}
