package assigndv1

import "github.com/assignd/assignd/assign"

// RebalanceProtocolOf converts the engine's rebalance protocol to the API's.
// It is hand-written beside the generated code so that the server, the
// client shim and their tests share one mapping.
func RebalanceProtocolOf(p assign.RebalanceProtocol) RebalanceProtocol {
	switch p {
	case assign.Eager:
		return RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
	case assign.Cooperative:
		return RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE
	}
	return RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED
}
