package console

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// decisionShown are the Decision fields the group page lays out itself;
// every other field that is set is listed by [extraFields], so that a
// field added to the record (the move reasons, say) shows before the
// console learns to lay it out.
var decisionShown = map[protoreflect.FieldNumber]bool{}

func init() {
	for n := protoreflect.FieldNumber(1); n <= 25; n++ {
		decisionShown[n] = true
	}
	// History sharing: replica (shown with the caller), incarnation and
	// sequence (identifiers), shadow (shadow runs are shown apart).
	for n := protoreflect.FieldNumber(40); n <= 43; n++ {
		decisionShown[n] = true
	}
	decisionShown[30], decisionShown[31] = true, true // move_reasons, moves
	decisionShown[50], decisionShown[51] = true, true // caller_binding, topics
}

// field is one set field of a message, in words.
type field struct {
	Name string
	// Entries are a map's "key: value" pairs, sorted by key, or a list's
	// elements; Value a single value.
	Entries []string
	Value   string
}

// maxEntries bounds what one field shows.
const maxEntries = 64

// extraFields lists the set fields of m that shown does not name, in
// field number order.
func extraFields(m proto.Message, shown map[protoreflect.FieldNumber]bool) []field {
	var out []field
	r := m.ProtoReflect()
	fds := r.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if shown[fd.Number()] || !r.Has(fd) {
			continue
		}
		f := field{Name: strings.ReplaceAll(string(fd.Name()), "_", " ")}
		v := r.Get(fd)
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				f.Entries = append(f.Entries, fmt.Sprintf("%v: %s", k.Interface(), valueText(fd.MapValue(), mv)))
				return true
			})
			slices.Sort(f.Entries)
		case fd.IsList():
			l := v.List()
			for j := range l.Len() {
				f.Entries = append(f.Entries, valueText(fd, l.Get(j)))
			}
		default:
			f.Value = valueText(fd, v)
		}
		if len(f.Entries) > maxEntries {
			f.Entries = append(f.Entries[:maxEntries], fmt.Sprintf("and %d more", len(f.Entries)-maxEntries))
		}
		out = append(out, f)
	}
	return out
}

// valueText formats one value of fd: an enum by name, a message as compact
// text, anything else as Go prints it.
func valueText(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return fmt.Sprint(v.Enum())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return messageText(v.Message())
	case protoreflect.BytesKind:
		return fmt.Sprintf("%x", v.Bytes())
	}
	return fmt.Sprint(v.Interface())
}

// messageText formats a message on one line, "field: value" for each set
// field in number order, nested messages in braces. (prototext's output is
// deliberately unstable in its spacing.)
func messageText(m protoreflect.Message) string {
	var parts []string
	fds := m.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		var text string
		switch {
		case fd.IsMap():
			var es []string
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				es = append(es, fmt.Sprintf("%v: %s", k.Interface(), valueText(fd.MapValue(), mv)))
				return true
			})
			slices.Sort(es)
			text = "{" + strings.Join(es, ", ") + "}"
		case fd.IsList():
			var es []string
			for j := range v.List().Len() {
				es = append(es, valueText(fd, v.List().Get(j)))
			}
			text = "[" + strings.Join(es, ", ") + "]"
		default:
			text = valueText(fd, v)
			if fd.Kind() == protoreflect.MessageKind {
				text = "{" + text + "}"
			}
		}
		parts = append(parts, string(fd.Name())+": "+text)
	}
	return strings.Join(parts, ", ")
}
