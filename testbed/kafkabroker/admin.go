package kafkabroker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ping sends one metadata request to addr and succeeds when the broker
// lists itself: it is up, and registered with the controller.
func ping(ctx context.Context, addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RequestRetries(0), kgo.DialTimeout(2*time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if len(resp.Brokers) == 0 {
		return errors.New("no broker registered yet")
	}
	return nil
}

// CreateTopics creates topics (name → partitions) on the cluster at
// bootstrap (one host:port, or several separated by commas), each with
// the cluster's default.replication.factor (1 on [Start]'s broker, three
// on a [Cluster]), and waits until every partition has a leader. A
// topic that exists already is an error (kerr.TopicAlreadyExists), also
// while its deletion is still under way.
func CreateTopics(ctx context.Context, bootstrap string, topics map[string]int32) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...))
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 30000
	for _, name := range slices.Sorted(maps.Keys(topics)) {
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic, t.NumPartitions, t.ReplicationFactor = name, topics[name], -1 // the broker's default (KIP-464)
		req.Topics = append(req.Topics, t)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("kafkabroker: creating topics: %w", err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return fmt.Errorf("kafkabroker: creating topic %s: %w", t.Topic, err)
		}
	}
	return waitTopics(ctx, cl, topics)
}

// waitTopics waits until the metadata shows every topic with its number
// of partitions, each with a leader.
func waitTopics(ctx context.Context, cl *kgo.Client, topics map[string]int32) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var why string
	for {
		req := kmsg.NewPtrMetadataRequest()
		for name := range topics {
			t := kmsg.NewMetadataRequestTopic()
			t.Topic = kmsg.StringPtr(name)
			req.Topics = append(req.Topics, t)
		}
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			why = ""
			for _, t := range resp.Topics {
				name := deref(t.Topic)
				switch {
				case t.ErrorCode != 0:
					why = fmt.Sprintf("%s: %v", name, kerr.ErrorForCode(t.ErrorCode))
				case int32(len(t.Partitions)) != topics[name]:
					why = fmt.Sprintf("%s has %d partitions, want %d", name, len(t.Partitions), topics[name])
				}
				for _, p := range t.Partitions {
					if p.Leader < 0 || p.ErrorCode != 0 {
						why = fmt.Sprintf("%s/%d has no leader yet", name, p.Partition)
					}
				}
			}
			if why == "" && len(resp.Topics) == len(topics) {
				return nil
			}
		} else {
			why = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkabroker: topics not ready (%s): %w", why, ctx.Err())
		case <-tick.C:
		}
	}
}

// DeleteTopics deletes topics from the cluster at bootstrap and waits
// until the metadata no longer lists them; a topic that does not exist is
// not an error.
func DeleteTopics(ctx context.Context, bootstrap string, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...))
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = 30000
	for _, n := range names {
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = kmsg.StringPtr(n)
		req.Topics = append(req.Topics, t)
		req.TopicNames = append(req.TopicNames, n)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("kafkabroker: deleting topics: %w", err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
			return fmt.Errorf("kafkabroker: deleting topic %s: %w", deref(t.Topic), err)
		}
	}
	return waitGone(ctx, cl, names)
}

// waitGone waits until the metadata answers UNKNOWN_TOPIC_OR_PARTITION
// for every topic.
func waitGone(ctx context.Context, cl *kgo.Client, names []string) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		req := kmsg.NewPtrMetadataRequest()
		for _, n := range names {
			t := kmsg.NewMetadataRequestTopic()
			t.Topic = kmsg.StringPtr(n)
			req.Topics = append(req.Topics, t)
		}
		resp, err := req.RequestWith(ctx, cl)
		left := -1
		if err == nil {
			left = 0
			for _, t := range resp.Topics {
				if !errors.Is(kerr.ErrorForCode(t.ErrorCode), kerr.UnknownTopicOrPartition) {
					left++
				}
			}
		}
		if left == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkabroker: deleted topics still listed: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// PartitionLeader is the node id of the leader of topic's partition, as
// the cluster at bootstrap reports it now.
func PartitionLeader(ctx context.Context, bootstrap, topic string, partition int32) (int32, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, fmt.Errorf("kafkabroker: metadata of %s: %w", topic, err)
	}
	for _, rt := range resp.Topics {
		if err := kerr.ErrorForCode(rt.ErrorCode); err != nil {
			return 0, fmt.Errorf("kafkabroker: metadata of %s: %w", topic, err)
		}
		for _, p := range rt.Partitions {
			if p.Partition == partition && p.Leader >= 0 {
				return p.Leader, nil
			}
		}
	}
	return 0, fmt.Errorf("kafkabroker: %s/%d has no leader", topic, partition)
}

// GroupCoordinator is the node id of the broker that coordinates group,
// as the cluster at bootstrap answers FindCoordinator now.
func GroupCoordinator(ctx context.Context, bootstrap, group string) (int32, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKey, req.CoordinatorKeys = group, []string{group}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, fmt.Errorf("kafkabroker: the coordinator of %s: %w", group, err)
	}
	if len(resp.Coordinators) > 0 {
		c := resp.Coordinators[0]
		if err := kerr.ErrorForCode(c.ErrorCode); err != nil {
			return 0, fmt.Errorf("kafkabroker: the coordinator of %s: %w", group, err)
		}
		return c.NodeID, nil
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, fmt.Errorf("kafkabroker: the coordinator of %s: %w", group, err)
	}
	return resp.NodeID, nil
}
