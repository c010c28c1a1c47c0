package main

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

type topicPartition struct {
	topic     string
	partition int32
}

// checkRaw decodes an answer to sg's request from its wire form and
// checks it; its error names the group.
func (sg *stormGroup) checkRaw(m rawMessage) error {
	resp := new(assigndv1.AssignResponse)
	err := proto.Unmarshal(m.b, resp)
	if err == nil {
		err = sg.check(resp)
	}
	if err != nil {
		return fmt.Errorf("group %s: %w", sg.req.GetGroupId(), err)
	}
	return nil
}

// check validates an answer to sg's request as a leader would rely on
// it: every member of the group answered once, from the encoded bytes;
// every partition of the group's topics assigned or withheld at most
// once, every one nobody owns assigned, only to a member that subscribes to its topic; and none
// given to a member while another member still owns it (KIP-429: it is
// withheld until revoked).
func (sg *stormGroup) check(resp *assigndv1.AssignResponse) error {
	owner := make(map[topicPartition]string)
	subscribed := make(map[string]map[string]bool, len(sg.g.Members))
	for _, m := range sg.g.Members {
		subscribed[m.ID] = make(map[string]bool, len(m.Topics))
		for _, t := range m.Topics {
			subscribed[m.ID][t] = true
		}
		for _, tp := range m.Owned {
			for _, p := range tp.Partitions {
				owner[topicPartition{tp.Topic, p}] = m.ID
			}
		}
	}
	seen := make(map[topicPartition]bool)
	mark := func(tp topicPartition, who string) error {
		if seen[tp] {
			return fmt.Errorf("%s-%d handed out twice (to %s)", tp.topic, tp.partition, who)
		}
		seen[tp] = true
		return nil
	}
	answered := make(map[string]bool, len(resp.GetAssignments()))
	for _, a := range resp.GetAssignments() {
		id := a.GetMemberId()
		if subscribed[id] == nil || answered[id] {
			return fmt.Errorf("member %q answered twice or not in the group", id)
		}
		answered[id] = true
		dec, err := wire.DecodeAssignment(a.GetAssignment())
		if err != nil {
			return fmt.Errorf("member %q: %v", id, err)
		}
		for _, tp := range dec.Partitions {
			if !subscribed[id][tp.Topic] {
				return fmt.Errorf("member %q given %s, which it does not subscribe to", id, tp.Topic)
			}
			for _, p := range tp.Partitions {
				key := topicPartition{tp.Topic, p}
				if o, owned := owner[key]; owned && o != id {
					return fmt.Errorf("%s-%d given to %q while %q still owns it", tp.Topic, p, id, o)
				}
				if err := mark(key, id); err != nil {
					return err
				}
			}
		}
	}
	if len(answered) != len(sg.g.Members) {
		return fmt.Errorf("%d of %d members answered", len(answered), len(sg.g.Members))
	}
	for _, tp := range resp.GetPending() {
		for _, p := range tp.GetPartitions() {
			if err := mark(topicPartition{tp.GetTopic(), p}, "pending"); err != nil {
				return err
			}
		}
	}
	for _, t := range sg.g.Topics {
		for p := range t.Partitions {
			// A partition left out while a member still owns it is being
			// revoked (withheld, whether or not the answer lists it as
			// pending: the franz-go peer does not); one nobody owns must
			// be assigned.
			key := topicPartition{t.Name, p}
			if _, owned := owner[key]; !seen[key] && !owned {
				return fmt.Errorf("%s-%d, owned by nobody, is not assigned", t.Name, p)
			}
		}
	}
	return nil
}
