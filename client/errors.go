package client

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// ErrResponseTooLarge is wrapped by the error of a call whose response was
// larger than the client accepts (WithMaxResponseBytes). The server did
// the work; raise the limit rather than retry.
var ErrResponseTooLarge = errors.New("assignd's response is larger than the client accepts (see client.WithMaxResponseBytes)")

// tooLarge matches gRPC's message for a message over a receive limit. The
// client's own limit and the server's (assignd --max-recv-bytes) both
// produce it, with the size received and the limit.
var tooLarge = regexp.MustCompile(`received message larger than max \((\d+) vs\. (\d+)\)`)

// sizeError wraps err in ErrResponseTooLarge when it is the client refusing
// the response rather than the server refusing the request: the limit in
// the message is the client's and the size is not the request's (a request
// and its response of the same size are a coincidence not worth more
// work). The request is measured only then.
func (c *Client) sizeError(err error, req proto.Message) error {
	if status.Code(err) != codes.ResourceExhausted {
		return err
	}
	m := tooLarge.FindStringSubmatch(status.Convert(err).Message())
	if m == nil {
		return err
	}
	got, _ := strconv.Atoi(m[1])
	limit, _ := strconv.Atoi(m[2])
	if limit != c.maxResponse || got == proto.Size(req) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrResponseTooLarge, err)
}
