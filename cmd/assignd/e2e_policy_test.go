package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/testbed/contains"
)

// dialProcess connects a raw gRPC client to a running assignd.
func dialProcess(t *testing.T, p *process) assigndv1.AssignmentServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(p.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return assigndv1.NewAssignmentServiceClient(conn)
}

// waitLog waits for a log record with message msg.
func (p *process) waitLog(t *testing.T, msg string) map[string]any {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case rec := <-p.lines:
			if rec["msg"] == msg {
				return rec
			}
		case <-deadline:
			t.Fatalf("no log line %q", msg)
		}
	}
}

// revisionOf is the revision assignd reports for a policy file.
func revisionOf(t *testing.T, path string) string {
	t.Helper()
	p, err := policy.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p.Revision()
}

// waitRevision polls ExplainPolicy until the server serves revision rev.
func waitRevision(t *testing.T, client assigndv1.AssignmentServiceClient, rev string) {
	t.Helper()
	req := &assigndv1.ExplainPolicyRequest{GroupId: "orders", ProtocolName: "cooperative-sticky"}
	var last string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp, err := client.ExplainPolicy(ctx, req)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if last = resp.GetRevision(); last == rev {
			return
		}
	}
	t.Fatalf("still serving revision %s, want %s", last, rev)
}

const pinnedV2 = `version: 1
rules:
  - name: pinned
    description: orders on version 2
    match: {groups: [orders], protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@2
`

const pinnedV1Frozen = `version: 1
rules:
  - name: pinned
    description: orders back on version 1, frozen
    match: {groups: [orders], protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    params: {freeze: true}
`

// TestBinaryPolicy runs assignd with --policy on a file, explains a group
// with assignctl and a raw client, rewrites the file atomically (as an
// editor or a ConfigMap update does) and sees the new revision in
// responses; an invalid edit is rejected and the last good revision keeps
// serving; SIGHUP re-reads the file.
func TestBinaryPolicy(t *testing.T) {
	assignd, ctl := binaries(t)
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, pinnedV2)
	rev1 := revisionOf(t, path)
	p := startAssignd(t, assignd, []string{"ASSIGND_POLICY=" + path})
	client := dialProcess(t, p)

	code, out := assignctl(t, ctl, "policy", "check", path)
	if code != 0 || strings.TrimSpace(out) != "ok: revision "+rev1+", rules pinned, default" {
		t.Errorf("assignctl policy check: %d %q", code, out)
	}
	code, out = assignctl(t, ctl, "--addr", p.grpcAddr, "policy", "explain", "orders", "cooperative-sticky")
	if code != 0 || !strings.Contains(out, "pinned/"+rev1) || !strings.Contains(out, "cooperative-sticky@2") || !strings.Contains(out, "orders on version 2") {
		t.Errorf("assignctl policy explain: %d\n%s", code, out)
	}
	code, out = assignctl(t, ctl, "policy", "explain", "orders", "--addr", p.grpcAddr)
	if code != 0 || strings.Count(out, `group "orders"`) != 4 || !strings.Contains(out, "protocol range") || !strings.Contains(out, "default/"+rev1) {
		t.Errorf("assignctl policy explain without a protocol: %d\n%s", code, out)
	}

	req := exampleRequest(t, "cooperative-metadata.json")
	req.GroupId = "orders"
	assignWith := func(wantPolicy string, wantVersion int32) {
		t.Helper()
		resp, err := client.Assign(testCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetPolicy() != wantPolicy || resp.GetAssignorVersion() != wantVersion {
			t.Errorf("Assign: policy %s, %s@%d; want %s, version %d", resp.GetPolicy(), resp.GetAssignor(), resp.GetAssignorVersion(), wantPolicy, wantVersion)
		}
	}
	assignWith("pinned/"+rev1, 2)

	// An atomic rewrite: the watcher serves the new revision.
	writeFile(t, path, pinnedV1Frozen)
	rev2 := revisionOf(t, path)
	waitRevision(t, client, rev2)
	assignWith("pinned/"+rev2, 1)
	if rec := p.waitLog(t, "policy reloaded"); rec["revision"] != rev2 || rec["previous_revision"] != rev1 {
		t.Errorf("reload log line: %v", rec)
	}

	// An invalid edit: rejected, logged, and revision 2 keeps serving.
	writeFile(t, path, "version: 1\nrules:\n  - name: pinned\n    assignor: cooperative-sticky@9\n")
	if rec := p.waitLog(t, "policy file rejected; the last good revision keeps serving"); rec["serving_revision"] != rev2 {
		t.Errorf("rejection log line: %v", rec)
	}
	assignWith("pinned/"+rev2, 1)
	code, out = assignctl(t, ctl, "policy", "check", path)
	if code != 1 || !strings.Contains(out, path+":4: rule \"pinned\": assignor: ") {
		t.Errorf("assignctl policy check of the invalid file: %d\n%s", code, out)
	}

	// SIGHUP reads the fixed file at once.
	writeFile(t, path, pinnedV2+"# fixed\n")
	rev3 := revisionOf(t, path)
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.waitLog(t, "SIGHUP: policy file re-read")
	waitRevision(t, client, rev3)
	assignWith("pinned/"+rev3, 2)

	metrics := httpGet(t, "http://"+p.metricsAddr+"/metrics")
	contains.All(t, "/metrics", metrics, `assignd_policy_revision{file="`+path+`",`, `revision="`+rev3+`"`, `rule="pinned"`)
	p.stop(t)
}

// TestBinaryRefusesInvalidPolicy: assignd does not start on a bad file,
// and says what is wrong with it.
func TestBinaryRefusesInvalidPolicy(t *testing.T) {
	assignd, _ := binaries(t)
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, "version: 1\nrules:\n  - name: r\n    match: {protocols: [range]}\n    assignor: cooperative-sticky@7\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, assignd, "--listen", "127.0.0.1:0", "--metrics-listen", "", "--policy", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("assignd with an invalid policy: %v, want exit status 1", err)
	}
	if !strings.Contains(stderr.String(), path+":5") || strings.Contains(stderr.String(), "assignd serving") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if err := exec.CommandContext(ctx, assignd, "--metrics-listen", "", "--policy", filepath.Join(t.TempDir(), "missing.yaml")).Run(); err == nil {
		t.Error("assignd started without its policy file")
	}
}

// TestBinaryReplicasAgree: three assignd processes on loopback with the
// same policy file give byte-identical responses to the same requests
// (deterministic marshalling, nothing excluded): a leader may fail over
// between replicas mid-rebalance without its group noticing.
func TestBinaryReplicasAgree(t *testing.T) {
	assignd, _ := binaries(t)
	policyFile := filepath.Join("..", "..", "examples", "policy.yaml")
	var clients []assigndv1.AssignmentServiceClient
	var procs []*process
	for range 3 {
		p := startAssignd(t, assignd, nil, "--policy", policyFile)
		procs = append(procs, p)
		clients = append(clients, dialProcess(t, p))
	}
	examples, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.json"))
	var reqs []*assigndv1.AssignRequest
	for _, f := range examples {
		req := exampleRequest(t, filepath.Base(f))
		reqs = append(reqs, req)
		// The same group under the example policy's other rules: a staged
		// rollout, a frozen group, a shadowed one.
		for _, group := range []string{"payments-ledger", "payments-archive", "billing-eu"} {
			r := proto.Clone(req).(*assigndv1.AssignRequest)
			r.GroupId = group
			reqs = append(reqs, r)
		}
	}
	marshal := proto.MarshalOptions{Deterministic: true}
	for _, req := range reqs {
		var first []byte
		for i, c := range clients {
			resp, err := c.Assign(testCtx(t), req)
			if err != nil {
				t.Fatalf("replica %d, group %s: %v", i, req.GetGroupId(), err)
			}
			b, err := marshal.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = b
				if !strings.Contains(resp.GetPolicy(), "/"+revisionOf(t, policyFile)) {
					t.Errorf("group %s: policy %q", req.GetGroupId(), resp.GetPolicy())
				}
				continue
			}
			if !bytes.Equal(b, first) {
				t.Errorf("group %s (%s): replica %d answered differently from replica 0", req.GetGroupId(), req.GetProtocolName(), i)
			}
		}
		var firstExplain []byte
		for i, c := range clients {
			resp, err := c.ExplainPolicy(testCtx(t), &assigndv1.ExplainPolicyRequest{GroupId: req.GetGroupId(), ProtocolName: req.GetProtocolName()})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := marshal.Marshal(resp)
			if i == 0 {
				firstExplain = b
			} else if !bytes.Equal(b, firstExplain) {
				t.Errorf("group %s: replica %d explains differently", req.GetGroupId(), i)
			}
		}
	}
	for _, p := range procs {
		p.stop(t)
	}
}

func exampleRequest(t *testing.T, name string) *assigndv1.AssignRequest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	req := &assigndv1.AssignRequest{}
	if err := protojson.Unmarshal(data, req); err != nil {
		t.Fatal(err)
	}
	return req
}
