package client

import (
	"encoding/json"
	"fmt"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// maxAttemptsLimit is gRPC's own cap on retry attempts.
const maxAttemptsLimit = 5

// ServiceConfig returns the gRPC service config the client uses by default:
//
//   - round_robin load balancing, so that a "dns:///" target spreads calls
//     over every replica the name resolves to;
//   - health checking of assignd.v1.AssignmentService, so that replicas
//     reporting NOT_SERVING (draining for shutdown) get no new calls;
//   - for every AssignmentService method, up to maxAttempts tries of calls
//     failing with UNAVAILABLE, backing off from 50 ms to 500 ms. Both
//     methods are pure, so retrying never does anything twice.
//
// maxAttempts is clamped to 1..5; 1 disables retries.
func ServiceConfig(maxAttempts int) string {
	maxAttempts = min(max(maxAttempts, 1), maxAttemptsLimit)
	type name struct {
		Service string `json:"service"`
	}
	type retryPolicy struct {
		MaxAttempts          int      `json:"maxAttempts"`
		InitialBackoff       string   `json:"initialBackoff"`
		MaxBackoff           string   `json:"maxBackoff"`
		BackoffMultiplier    float64  `json:"backoffMultiplier"`
		RetryableStatusCodes []string `json:"retryableStatusCodes"`
	}
	type methodConfig struct {
		Name        []name       `json:"name"`
		RetryPolicy *retryPolicy `json:"retryPolicy,omitempty"`
	}
	cfg := struct {
		LoadBalancingConfig []map[string]struct{} `json:"loadBalancingConfig"`
		HealthCheckConfig   struct {
			ServiceName string `json:"serviceName"`
		} `json:"healthCheckConfig"`
		MethodConfig []methodConfig `json:"methodConfig"`
	}{
		LoadBalancingConfig: []map[string]struct{}{{"round_robin": {}}},
	}
	cfg.HealthCheckConfig.ServiceName = assigndv1.AssignmentService_ServiceDesc.ServiceName
	mc := methodConfig{Name: []name{{Service: assigndv1.AssignmentService_ServiceDesc.ServiceName}}}
	if maxAttempts > 1 {
		mc.RetryPolicy = &retryPolicy{
			MaxAttempts: maxAttempts, InitialBackoff: "0.05s", MaxBackoff: "0.5s",
			BackoffMultiplier: 2, RetryableStatusCodes: []string{"UNAVAILABLE"},
		}
	}
	cfg.MethodConfig = []methodConfig{mc}
	b, err := json.Marshal(cfg)
	if err != nil {
		panic(fmt.Sprintf("client: encoding the service config: %v", err)) // static types: cannot happen
	}
	return string(b)
}
