package history

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// Service implements assigndv1.GroupHistoryServiceServer over a Store
// (nil: every call is UNIMPLEMENTED). It is read-only; its errors are
// plain statuses (no domain reason applies).
type Service struct {
	assigndv1.UnimplementedGroupHistoryServiceServer
	store *Store
}

// NewService serves store's groups; store may be nil (the server keeps
// no history).
func NewService(store *Store) *Service { return &Service{store: store} }

var errNoHistory = status.Error(codes.Unimplemented, "this server keeps no group history (started without one)")

func (h *Service) ListGroups(_ context.Context, req *assigndv1.ListGroupsRequest) (*assigndv1.ListGroupsResponse, error) {
	if h.store == nil {
		return nil, errNoHistory
	}
	if req.GetPageSize() < 0 {
		return nil, status.Error(codes.InvalidArgument, "page_size must not be negative")
	}
	p, err := h.store.List(Query{
		Signal: req.GetSignal(), Assignor: req.GetAssignor(), Rule: req.GetPolicyRule(), Prefix: req.GetGroupIdPrefix(),
		PageSize: int(req.GetPageSize()), PageToken: req.GetPageToken(),
	})
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "page_token is not one ListGroups returned")
	}
	resp := &assigndv1.ListGroupsResponse{Groups: p.Groups, NextPageToken: p.Next, TotalGroups: int32(p.Total)}
	if req.GetPageToken() == "" {
		// The replicas (and their gaps) once, on the first page.
		resp.Replicas = h.store.Replicas()
	}
	return resp, nil
}

func (h *Service) GetGroup(_ context.Context, req *assigndv1.GetGroupRequest) (*assigndv1.GetGroupResponse, error) {
	if h.store == nil {
		return nil, errNoHistory
	}
	if req.GetMaxDecisions() < 0 {
		return nil, status.Error(codes.InvalidArgument, "max_decisions must not be negative")
	}
	sum, ds, ok := h.store.Get(req.GetGroupId(), int(req.GetMaxDecisions()))
	if !ok {
		return nil, status.Errorf(codes.NotFound, "group %q: no decision recorded on this replica", rpcerr.Clip(req.GetGroupId()))
	}
	return &assigndv1.GetGroupResponse{Summary: sum, Decisions: ds, ShadowDecisions: h.store.Shadows(req.GetGroupId(), int(req.GetMaxDecisions()))}, nil
}
