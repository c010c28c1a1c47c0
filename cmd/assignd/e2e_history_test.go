package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/policytest"
)

// Two assignd processes share their history through a Kafka topic
// (kfake): a decision one serves, and its shadow run, are shown by the
// other, by GetGroup and by assignctl; the records are counted in the
// metrics.
func TestBinaryHistoryShared(t *testing.T) {
	assignd, ctl := binaries(t)
	broker, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, policy, policytest.CappedShadowed)
	env := func(replica string) []string {
		return []string{"ASSIGND_POLICY=" + policy, "ASSIGND_HISTORY_BROKERS=" + broker.ListenAddrs()[0], "ASSIGND_HISTORY_REPLICA=" + replica,
			"ASSIGND_HISTORY_TOPIC=e2e-history", "ASSIGND_HISTORY_THRESHOLDS=rebalances-per-hour=100,unowned=1m"}
	}
	a := startAssignd(t, assignd, env("replica-a"))
	b := startAssignd(t, assignd, env("replica-b"))
	defer a.stop(t)
	defer b.stop(t)

	// a owns all 12 partitions, b and c join: the capped primary moves 1,
	// the shadow 8.
	req := &assigndv1.AssignRequest{GroupId: "orders", GenerationId: 5, ProtocolName: "cooperative-sticky", LeaderId: "a",
		Topics: []*assigndv1.Topic{{Name: "t", PartitionCount: 12}},
		Members: []*assigndv1.Member{
			{MemberId: "a", Topics: []string{"t"}, OwnedPartitions: []*assigndv1.TopicPartitions{{Topic: "t", Partitions: []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}}},
			{MemberId: "b", Topics: []string{"t"}}, {MemberId: "c", Topics: []string{"t"}},
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := dialProcess(t, a).Assign(ctx, req); err != nil {
		t.Fatal(err)
	}

	conn, err := grpc.NewClient(b.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hb := assigndv1.NewGroupHistoryServiceClient(conn)
	var resp *assigndv1.GetGroupResponse
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err = hb.GetGroup(ctx, &assigndv1.GetGroupRequest{GroupId: "orders"})
		if err == nil && len(resp.GetDecisions()) == 1 && len(resp.GetShadowDecisions()) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica-b never showed replica-a's decision and shadow run: %v, %v", resp, err)
		}
	}
	d, sh := resp.GetDecisions()[0], resp.GetShadowDecisions()[0]
	if d.GetReplica() != "replica-a" || d.GetMoved() != 1 || d.GetShadow() || d.GetPolicyRule() != "capped" {
		t.Errorf("decision %v: want replica-a's, capped, 1 moved", d)
	}
	if sh.GetReplica() != "replica-a" || !sh.GetShadow() || sh.GetMoved() != 8 || sh.GetGenerationId() != 5 {
		t.Errorf("shadow %v: want replica-a's, marked shadow, 8 moved, generation 5", sh)
	}

	code, out := assignctl(t, ctl, "--addr", b.grpcAddr, "describe", "orders")
	if code != 0 || !strings.Contains(out, "Shadow runs") || !strings.Contains(out, "Rebalances in the last hour: 1") {
		t.Errorf("assignctl describe on replica-b: exit %d\n%s", code, out)
	}
	metrics := httpGet(t, "http://"+a.metricsAddr+"/metrics")
	if !strings.Contains(metrics, fmt.Sprintf("assignd_history_records_produced_total %d", 2)) {
		t.Errorf("/metrics of replica-a does not count its 2 records produced:\n%s", grepLines(metrics, "assignd_history"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
