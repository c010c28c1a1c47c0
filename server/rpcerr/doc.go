// Package rpcerr is the one place that turns assignd's errors into gRPC
// statuses, for every service of the server: [ToStatus] maps each error
// kind to its code, with google.rpc.BadRequest and google.rpc.ErrorInfo
// details (domain [assigndv1.ErrorDomain], reasons from
// [assigndv1.ErrorReason]), so that leaders in any language can branch on
// the cause. Messages name the member or field at fault and never leak
// internals: what a client supplied is clipped ([Clip]) before it is
// echoed.
package rpcerr
