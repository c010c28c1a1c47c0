package policytest_test

import (
	"testing"

	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/testbed/policytest"
)

// Both documents parse, and Canary's lines land in its rule's rollout.
func TestDocumentsParse(t *testing.T) {
	if _, err := policy.Parse("shadowed.yaml", []byte(policytest.CappedShadowed)); err != nil {
		t.Error(err)
	}
	p, err := policy.Parse("canary.yaml", []byte(policytest.Canary("include: [orders-1]", "steps: [{percent: 10, hold: 1s}, {percent: 100}]")))
	if err != nil {
		t.Fatal(err)
	}
	if sr := p.StagedRules(); len(sr) != 1 || sr[0].Rule != "canary" || len(sr[0].Steps) != 2 || sr[0].Steps[0].BasisPoints != 1000 {
		t.Errorf("StagedRules = %+v", sr)
	}
}
