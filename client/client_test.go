package client_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/shimtest"
)

func TestAssignRetriesUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name      string
		attempts  int
		failFirst int64
		wantCode  codes.Code
		wantCalls int64
	}{
		{"default attempts absorb two failures", client.DefaultMaxAttempts, 2, codes.OK, 3},
		{"retries disabled", 1, 1, codes.Unavailable, 1},
		{"attempts exhausted", 2, 5, codes.Unavailable, 2},
		{"attempts clamped to gRPC's limit", 9, 9, codes.Unavailable, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := &fakeService{failFirst: tc.failFirst}
			c, err := client.New(shimtest.ServeFake(t, svc), client.WithMaxAttempts(tc.attempts))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.Assign(testContext(t), &assigndv1.AssignRequest{ProtocolName: "range"})
			if got := status.Code(err); got != tc.wantCode {
				t.Fatalf("code %v (%v), want %v", got, err, tc.wantCode)
			}
			if got := svc.calls.Load(); got != tc.wantCalls {
				t.Fatalf("server saw %d attempts, want %d", got, tc.wantCalls)
			}
		})
	}
}

func TestAssignTimeout(t *testing.T) {
	svc := &fakeService{block: true}
	c, err := client.New(shimtest.ServeFake(t, svc), client.WithTimeout(150*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	_, err = c.Assign(testContext(t), &assigndv1.AssignRequest{ProtocolName: "range"})
	if got := status.Code(err); got != codes.DeadlineExceeded {
		t.Fatalf("code %v (%v), want DeadlineExceeded", got, err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("the call took %s despite a 150ms timeout", took)
	}
	if c.Timeout() != 150*time.Millisecond {
		t.Fatalf("Timeout() = %s", c.Timeout())
	}
}

func TestRoundRobinOverResolvedAddresses(t *testing.T) {
	a, b := &fakeService{name: "a"}, &fakeService{name: "b"}
	r := manual.NewBuilderWithScheme("lab")
	r.InitialState(resolver.State{Addresses: []resolver.Address{{Addr: shimtest.ServeFake(t, a)}, {Addr: shimtest.ServeFake(t, b)}}})
	c, err := client.New("lab:///assignd", client.WithDialOptions(grpc.WithResolvers(r)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testContext(t)
	// Wait until both replicas are connected: round robin only picks
	// ready ones.
	for a.calls.Load() == 0 || b.calls.Load() == 0 {
		if _, err := c.Assign(ctx, &assigndv1.AssignRequest{ProtocolName: "range"}); err != nil {
			t.Fatal(err)
		}
	}
	a.calls.Store(0)
	b.calls.Store(0)
	for range 20 {
		if _, err := c.Assign(ctx, &assigndv1.AssignRequest{ProtocolName: "range"}); err != nil {
			t.Fatal(err)
		}
	}
	if a.calls.Load() != 10 || b.calls.Load() != 10 {
		t.Fatalf("calls split %d/%d, want 10/10 (round robin)", a.calls.Load(), b.calls.Load())
	}
}

func TestDNSTarget(t *testing.T) {
	c, err := client.New("dns:///" + shimtest.ServeAssignd(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	as, err := c.ListAssignors(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range as {
		names = append(names, fmt.Sprintf("%s@%d", a.GetName(), a.GetVersion()))
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "cooperative-sticky@1") || !strings.Contains(got, "range@1") {
		t.Fatalf("assignors %q miss the standard ones", got)
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target string
		opts   []client.Option
	}{
		{"empty target", "", nil},
		{"negative timeout", "127.0.0.1:1", []client.Option{client.WithTimeout(-time.Second)}},
		{"invalid service config", "127.0.0.1:1", []client.Option{client.WithServiceConfig("{not json")}},
		{"zero reconnect backoff", "127.0.0.1:1", []client.Option{client.WithReconnectBackoff(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c, err := client.New(tc.target, tc.opts...); err == nil {
				c.Close()
				t.Fatal("New succeeded")
			}
		})
	}
}

func TestServiceConfig(t *testing.T) {
	for _, tc := range []struct {
		attempts int
		want     int // 0: no retry policy
	}{{0, 0}, {1, 0}, {3, 3}, {5, 5}, {8, 5}} {
		var cfg struct {
			LoadBalancingConfig []map[string]any `json:"loadBalancingConfig"`
			HealthCheckConfig   struct {
				ServiceName string `json:"serviceName"`
			} `json:"healthCheckConfig"`
			MethodConfig []struct {
				Name        []struct{ Service string } `json:"name"`
				RetryPolicy *struct {
					MaxAttempts          int      `json:"maxAttempts"`
					RetryableStatusCodes []string `json:"retryableStatusCodes"`
				} `json:"retryPolicy"`
			} `json:"methodConfig"`
		}
		js := client.ServiceConfig(tc.attempts)
		if err := json.Unmarshal([]byte(js), &cfg); err != nil {
			t.Fatalf("%d: %v", tc.attempts, err)
		}
		if _, ok := cfg.LoadBalancingConfig[0]["round_robin"]; !ok || len(cfg.LoadBalancingConfig) != 1 {
			t.Errorf("%d: load balancing %v, want round_robin", tc.attempts, cfg.LoadBalancingConfig)
		}
		if cfg.HealthCheckConfig.ServiceName != "assignd.v1.AssignmentService" {
			t.Errorf("%d: health check of %q", tc.attempts, cfg.HealthCheckConfig.ServiceName)
		}
		rp := cfg.MethodConfig[0].RetryPolicy
		switch {
		case tc.want == 0 && rp != nil:
			t.Errorf("%d: unexpected retry policy %+v", tc.attempts, rp)
		case tc.want != 0 && (rp == nil || rp.MaxAttempts != tc.want || strings.Join(rp.RetryableStatusCodes, ",") != "UNAVAILABLE"):
			t.Errorf("%d: retry policy %+v, want %d attempts on UNAVAILABLE", tc.attempts, rp, tc.want)
		}
	}
}
