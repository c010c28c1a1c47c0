package loadsource_test

import (
	"strconv"
	"testing"
	"time"
)

// What Assign pays for a shared snapshot: a group of 20 topics out of
// 1,000 tracked, 4 epochs kept.
func BenchmarkBookWeights(b *testing.B) {
	book, _ := sharedBook()
	rates := map[string][]float64{}
	for i := range 1000 {
		rates["topic-"+strconv.Itoa(i)] = make([]float64, 32)
	}
	for e := range 4 {
		book.Apply(snap("", base.Add(time.Duration(e)*iv), "a", rates))
	}
	topics := make([]string, 20)
	for i := range topics {
		topics[i] = "topic-" + strconv.Itoa(i*50)
	}
	now := base.Add(5 * iv)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := book.Weights("", topics, now, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
}
