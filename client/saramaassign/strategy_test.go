package saramaassign_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/IBM/sarama"

	"github.com/assignd/assignd/client/saramaassign"
)

func TestConstructorsSpeakSaramasNames(t *testing.T) {
	for _, tc := range []struct {
		s    *saramaassign.Strategy
		want string
	}{
		{saramaassign.Range(nil), sarama.NewBalanceStrategyRange().Name()},
		{saramaassign.RoundRobin(nil), sarama.NewBalanceStrategyRoundRobin().Name()},
		{saramaassign.Sticky(nil), sarama.NewBalanceStrategySticky().Name()},
	} {
		if got := tc.s.Name(); got != tc.want {
			t.Errorf("Name() = %q, sarama's is %q", got, tc.want)
		}
		if got := tc.s.SupportedProtocols(); !reflect.DeepEqual(got, []sarama.RebalanceProtocol{sarama.RebalanceProtocolEager}) {
			t.Errorf("%s: SupportedProtocols() = %v, want eager only", tc.want, got)
		}
	}
}

func TestNewRejectsWhatItCannotRun(t *testing.T) {
	for _, name := range []string{sarama.CooperativeStickyBalanceStrategyName, "uniform", "", "Range"} {
		s, err := saramaassign.New(nil, name)
		if err == nil || s != nil {
			t.Errorf("New(%q) = %v, %v; want an error", name, s, err)
			continue
		}
		if !strings.Contains(err.Error(), "eager") {
			t.Errorf("New(%q): %v does not say the adapter is eager-only", name, err)
		}
	}
}

// A consumer group config with the adapter's strategies validates, also
// beside sarama's cooperative-sticky: that one supports the eager protocol
// too, so the only protocol every strategy has in common is eager.
func TestSaramaAcceptsTheStrategy(t *testing.T) {
	cfg := sarama.NewConfig()
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{
		saramaassign.Sticky(nil), saramaassign.Range(nil), saramaassign.RoundRobin(nil),
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg.Consumer.Group.Rebalance.GroupStrategies = append(cfg.Consumer.Group.Rebalance.GroupStrategies,
		sarama.NewBalanceStrategyCooperativeSticky())
	if err := cfg.Validate(); err != nil {
		t.Fatalf("beside cooperative-sticky: %v", err)
	}
}
