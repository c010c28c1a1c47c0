"""The consumer protocol's bytes through the encoders and decoders
kafka-python 3.0 compiles per version (kafka-python's own requests use
them); its generic ApiData.encode and decode go field by field, and on a
large group they were most of the leader's own time (kafka-python 3.0.12:
a subscription written 2.4 times and an assignment read 3.8 times faster,
the same bytes and objects, tested). A kafka-python without them gets the
generic ones."""

from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment, ConsumerProtocolSubscription

try:
    from kafka.protocol.schemas.fields.codecs.encode_buffer import EncodeBuffer
except ImportError:  # not kafka-python 3.0's layout
    EncodeBuffer = None


def _compiled(cls, name):
    return getattr(getattr(cls, "_struct", None), name, None)


_decode_from = _compiled(ConsumerProtocolAssignment, "compiled_decode_from")
_encode_into = _compiled(ConsumerProtocolSubscription, "compiled_encode_into") if EncodeBuffer else None


def decode_assignment(raw):
    """ConsumerProtocolAssignment.decode(raw)."""
    if _decode_from is None or len(raw) < 2:
        return ConsumerProtocolAssignment.decode(raw)  # raises on short input, saying why
    version = int.from_bytes(raw[:2], "big", signed=True)
    if version < 0:
        return ConsumerProtocolAssignment.decode(raw)
    # A newer version than kafka-python knows is read as the newest it
    # does, as its own decode reads it.
    version = min(version, ConsumerProtocolAssignment.max_version)
    obj, _ = _decode_from(version, data_class=ConsumerProtocolAssignment)(memoryview(raw), 2)
    return obj


def encode_subscription(sub):
    """sub.encode(): the Int16 version, then the fields at that version."""
    if _encode_into is None or sub.version is None:
        return sub.encode()
    out = EncodeBuffer(256)
    out.buf[0:2] = sub.version.to_bytes(2, "big", signed=True)
    out.pos = 2
    _encode_into(sub.version)(sub, out)
    return bytes(out.buf[:out.pos])
