package assigndv1

// ErrorDomain is the google.rpc.ErrorInfo domain of every error assignd
// returns. Together with ErrorInfo.reason (an [ErrorReason] value name) it
// lets leaders in any language branch on the cause without parsing
// messages. It is hand-written beside the generated code because it is part
// of the API contract, as are the metadata keys below.
const ErrorDomain = "assignd.dev"

// Keys of ErrorInfo.metadata in assignd's errors.
const (
	// MetadataField is the request path of the field at fault, as in
	// BadRequest, e.g. "members[3].metadata" (INVALID_ARGUMENT errors).
	MetadataField = "field"
	// MetadataMemberID is the id of the member at fault, when the error is
	// about one member.
	MetadataMemberID = "member_id"
	// MetadataProtocolNames lists, comma-separated, the protocol names the
	// server answers for ([ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME]).
	MetadataProtocolNames = "protocol_names"
	// MetadataLimit names the server limit a request exceeded, MetadataMax
	// gives its value and MetadataGot the request's
	// ([ErrorReason_ERROR_REASON_LIMIT_EXCEEDED]).
	MetadataLimit = "limit"
	MetadataMax   = "max"
	MetadataGot   = "got"
)
