package main

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
)

// rawMessage is a message already in its wire form: a storm's requests
// are encoded before the storm and its answers decoded after it, so that
// the callers, which share the machine with the server, spend no CPU on
// protobuf while it is measured.
type rawMessage struct{ b []byte }

// rawCodec moves rawMessages as they are. It is named "proto", the
// content subtype the server decodes them with.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(*rawMessage)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot send %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(m.b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(*rawMessage)
	if !ok {
		return fmt.Errorf("rawCodec: cannot receive into %T", v)
	}
	m.b = data.Materialize()
	return nil
}

// rawCall is the call option that sends and receives rawMessages.
var rawCall = grpc.ForceCodecV2(rawCodec{})
