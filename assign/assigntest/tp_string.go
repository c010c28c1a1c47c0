package assigntest

import "fmt"

// String writes tp as "topic/partition".
func (tp TP) String() string { return fmt.Sprintf("%s/%d", tp.Topic, tp.Partition) }
