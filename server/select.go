package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// selectAssignor asks the Selector what runs for the group, and turns
// what it refuses into the call's error.
func (s *service) selectAssignor(ctx context.Context, group, protocolName string, proto assign.RebalanceProtocol, caller selection.Caller) (selection.Selection, error) {
	sel, err := s.sel.Select(ctx, selection.Query{GroupID: group, ProtocolName: protocolName, Protocol: proto, Caller: caller})
	switch {
	case errors.Is(err, selection.ErrUnknownProtocol):
		return sel, rpcerr.UnknownProtocol(err)
	case errors.Is(err, selection.ErrCallerNotAllowed):
		s.logger.WarnContext(ctx, "caller refused by the policy's binding", "group", rpcerr.Clip(group),
			"caller", rpcerr.Clip(caller.Subject), "error", rpcerr.ClipMessage(err.Error()))
		return sel, err
	case err != nil:
		s.logger.ErrorContext(ctx, "selector failed", "group", rpcerr.Clip(group), "error", rpcerr.ClipMessage(err.Error()))
		return sel, fmt.Errorf("selecting the assignor: %w", err)
	case sel.Assignor == nil:
		s.logger.ErrorContext(ctx, "selector chose no assignor", "group", rpcerr.Clip(group))
		return sel, rpcerr.ErrInternal
	}
	return sel, nil
}

// selectTaskAssignor asks the Selector which task assignor runs for a
// streams group, as selectAssignor does for a consumer group. A Selector
// that does not choose task assignors ([selection.TaskSelector]) serves
// them as [selection.Default] does.
func (s *service) selectTaskAssignor(ctx context.Context, label string, caller selection.Caller) (selection.TaskSelection, error) {
	ts, ok := s.sel.(selection.TaskSelector)
	if !ok {
		ts = selection.Default().(selection.TaskSelector)
	}
	sel, err := ts.SelectTasks(ctx, selection.Query{GroupID: label, Caller: caller})
	switch {
	case errors.Is(err, selection.ErrCallerNotAllowed):
		s.logger.WarnContext(ctx, "caller refused by the policy's binding", "group", rpcerr.Clip(label), "group_type", "streams",
			"caller", rpcerr.Clip(caller.Subject), "error", rpcerr.ClipMessage(err.Error()))
		return sel, err
	case err != nil:
		s.logger.ErrorContext(ctx, "selector failed", "group", rpcerr.Clip(label), "group_type", "streams", "error", rpcerr.ClipMessage(err.Error()))
		return sel, fmt.Errorf("selecting the task assignor: %w", err)
	case sel.Assignor == nil:
		s.logger.ErrorContext(ctx, "selector chose no task assignor", "group", rpcerr.Clip(label))
		return sel, rpcerr.ErrInternal
	}
	return sel, nil
}
